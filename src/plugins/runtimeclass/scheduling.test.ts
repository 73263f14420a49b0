// Upstream admission_test.go TestSetScheduling, every row (the pod after setScheduling, or the
// exact conflict message), plus toleration merging through the plugin's path.
import { describe, expect, it } from 'vitest';
import { attributesOf } from '../../../test/support/attributes.ts';
import { patchedThroughWebhook } from '../../../test/support/patches.ts';
import { forbiddenMessageOf } from '../../../test/support/rejections.ts';
import type { Pod } from '../../api/core.ts';
import type { RuntimeClass } from '../../ports/lookups.ts';
import { setScheduling } from './scheduling.ts';
import { newRuntimeClass, newSchedulingValidPod } from './testdata/upstream-cases.ts';

const fooBarNoSchedule = { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' };
const fizzBuzzNoSchedule = { key: 'fizz', operator: 'Equal', value: 'buzz', effect: 'NoSchedule' };

describe('setScheduling (upstream TestSetScheduling)', () => {
  it.each<{ name: string; runtimeClass: RuntimeClass; pod: Pod; error?: string; expectedPod?: Pod }>([
    {
      name: 'scheduling, nil scheduling',
      runtimeClass: newRuntimeClass('foo'),
      pod: newSchedulingValidPod('pod-with-conflict-node-selector', { foo: 'bar' }, []),
      expectedPod: newSchedulingValidPod('pod-with-conflict-node-selector', { foo: 'bar' }, []),
    },
    {
      name: 'scheduling, conflict node selector',
      runtimeClass: newRuntimeClass('foo', { scheduling: { nodeSelector: { foo: 'conflict' } } }),
      pod: newSchedulingValidPod('pod-with-conflict-node-selector', { foo: 'bar' }, []),
      error:
        'pods "pod-with-conflict-node-selector" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[foo] = conflict; pod.spec.nodeSelector[foo] = bar',
    },
    {
      name: 'scheduling, nil node selector',
      runtimeClass: newRuntimeClass('foo', { scheduling: { nodeSelector: { foo: 'bar' } } }),
      pod: newSchedulingValidPod('pod-with-conflict-node-selector', undefined, undefined),
      expectedPod: newSchedulingValidPod('pod-with-conflict-node-selector', { foo: 'bar' }, undefined),
    },
    {
      name: 'scheduling, node selector with the same key value',
      runtimeClass: newRuntimeClass('foo', { scheduling: { nodeSelector: { foo: 'bar' } } }),
      pod: newSchedulingValidPod('pod-with-same-key-value-node-selector', { foo: 'bar' }, undefined),
      expectedPod: newSchedulingValidPod('pod-with-same-key-value-node-selector', { foo: 'bar' }, undefined),
    },
    {
      name: 'scheduling, node selector with different key value',
      runtimeClass: newRuntimeClass('foo', { scheduling: { nodeSelector: { foo: 'bar', fizz: 'buzz' } } }),
      pod: newSchedulingValidPod('pod-with-different-key-value-node-selector', { foo: 'bar' }, undefined),
      expectedPod: newSchedulingValidPod('pod-with-different-key-value-node-selector', { foo: 'bar', fizz: 'buzz' }, undefined),
    },
    {
      name: 'scheduling, multiple tolerations',
      runtimeClass: newRuntimeClass('foo', { scheduling: { tolerations: [fooBarNoSchedule, fizzBuzzNoSchedule] } }),
      pod: newSchedulingValidPod('pod-with-tolerations', { foo: 'bar' }, [fooBarNoSchedule]),
      expectedPod: newSchedulingValidPod('pod-with-tolerations', { foo: 'bar' }, [fooBarNoSchedule, fizzBuzzNoSchedule]),
    },
  ])('$name', ({ runtimeClass: rc, pod, error, expectedPod }) => {
    const before = structuredClone(pod);
    const rcBefore = structuredClone(rc);
    expect(forbiddenMessageOf(() => setScheduling(attributesOf(pod), pod, rc))).toBe(error);
    expect(pod).toEqual(expectedPod ?? before);
    if (error !== undefined) return;
    // What the webhook answers, applied by the API server, gives the same pod.
    expect(patchedThroughWebhook(before, pod).result).toEqual(expectedPod);
    // Reinvocation changes nothing more.
    setScheduling(attributesOf(pod), pod, rc);
    expect(pod).toEqual(expectedPod);
    expect(rc).toEqual(rcBefore);
  });
});

describe('setScheduling beyond the upstream table', () => {
  it('leaves an empty pod toleration list alone when there is nothing to add', () => {
    const pod = newSchedulingValidPod('p', undefined, []);
    setScheduling(attributesOf(pod), pod, newRuntimeClass('foo', { scheduling: {} }));
    expect(pod).toEqual(newSchedulingValidPod('p', undefined, []));
  });

  it('keeps the broader toleration when one covers another', () => {
    const pod = newSchedulingValidPod('p', undefined, [fooBarNoSchedule]);
    const fooExists = { key: 'foo', operator: 'Exists' };
    setScheduling(attributesOf(pod), pod, newRuntimeClass('foo', { scheduling: { tolerations: [fooExists] } }));
    expect(pod.spec!.tolerations).toEqual([fooExists]);
  });

  it('merges into an empty pod node selector', () => {
    const pod = newSchedulingValidPod('p', {}, undefined);
    setScheduling(attributesOf(pod), pod, newRuntimeClass('foo', { scheduling: { nodeSelector: { a: 'b' } } }));
    expect(pod.spec!.nodeSelector).toEqual({ a: 'b' });
  });

  it('names the generateName in the conflict message when the pod has no name yet', () => {
    const pod: Pod = { metadata: { generateName: 'web-', namespace: 'test' }, spec: { nodeSelector: { zone: 'a' } } };
    const message = forbiddenMessageOf(() =>
      setScheduling(attributesOf(pod), pod, newRuntimeClass('foo', { scheduling: { nodeSelector: { zone: 'b' } } })),
    );
    expect(message).toBe(
      'pods "web-" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[zone] = b; pod.spec.nodeSelector[zone] = a',
    );
    expect(pod.spec!.nodeSelector).toEqual({ zone: 'a' });
  });
});
