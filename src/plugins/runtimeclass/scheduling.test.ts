// Upstream admission_test.go TestSetScheduling, every row (testdata/upstream-cases.ts: the pod after
// setScheduling, or the exact conflict message), plus toleration merging through the plugin's path.
import { describe, expect, it } from 'vitest';
import { attributesOf } from '../../../test/support/attributes.ts';
import { patchedThroughWebhook } from '../../../test/support/patches.ts';
import { forbiddenMessageOf } from '../../../test/support/rejections.ts';
import type { Pod } from '../../api/core.ts';
import { setScheduling } from './scheduling.ts';
import { newRuntimeClass, newSchedulingValidPod, setSchedulingCases } from './testdata/upstream-cases.ts';

const fooBarNoSchedule = { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' };

describe('setScheduling (upstream TestSetScheduling)', () => {
  it.each(setSchedulingCases)('$name', ({ runtimeClass: rc, pod: rowPod, error, expectedPod }) => {
    const pod = structuredClone(rowPod);
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
