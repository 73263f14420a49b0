// Upstream admission_test.go TestSetOverhead and TestValidateOverhead, every row. Upstream only
// checks error/no error; we also check the exact message and the pod after setOverhead.
// (Upstream's expectedPod for "overhead, guaranteed pod" drops the container resources, which
// setOverhead never touches; upstream never compares it. We check the resources stay.)
import { describe, expect, it } from 'vitest';
import { attributesOf } from '../../../test/support/attributes.ts';
import { patchedThroughWebhook } from '../../../test/support/patches.ts';
import { forbiddenMessageOf } from '../../../test/support/rejections.ts';
import type { Pod } from '../../api/core.ts';
import type { RuntimeClass } from '../../ports/lookups.ts';
import { setOverhead, validateOverhead } from './overhead.ts';
import { guaranteedResources, newOverheadValidPod, newRuntimeClass } from './testdata/upstream-cases.ts';

const smallOverhead = newRuntimeClass('foo', { overhead: { podFixed: { cpu: '100m', memory: '1' } } });
const bigOverhead = newRuntimeClass('foo', { overhead: { podFixed: { cpu: '10', memory: '10G' } } });
const noOverhead = newRuntimeClass('foo');

const mismatch = (pod: string) => `pods "${pod}" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`;
const unaccounted = (pod: string) =>
  `pods "${pod}" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`;

describe('setOverhead (upstream TestSetOverhead)', () => {
  it.each<{ name: string; runtimeClass: RuntimeClass; pod: Pod; error?: string; expectedPod?: Pod }>([
    {
      name: 'overhead, no container requirements',
      runtimeClass: smallOverhead,
      pod: newOverheadValidPod('no-resource-req-no-overhead', 1, {}, false, false),
      expectedPod: newOverheadValidPod('no-resource-req-no-overhead', 1, {}, true, false),
    },
    {
      name: 'overhead, guaranteed pod',
      runtimeClass: smallOverhead,
      pod: newOverheadValidPod('guaranteed', 1, guaranteedResources, false, false),
      expectedPod: newOverheadValidPod('guaranteed', 1, guaranteedResources, true, false),
    },
    {
      name: 'overhead, pod with differing overhead already set',
      runtimeClass: bigOverhead,
      pod: newOverheadValidPod('empty-requiremennts-overhead', 1, {}, true, false),
      error: mismatch('empty-requiremennts-overhead'),
    },
    {
      name: 'overhead, pod with same overhead already set',
      runtimeClass: smallOverhead,
      pod: newOverheadValidPod('empty-requiremennts-overhead', 1, {}, true, false),
      expectedPod: newOverheadValidPod('empty-requiremennts-overhead', 1, {}, true, false),
    },
  ])('$name', ({ runtimeClass: rc, pod, error, expectedPod }) => {
    const before = structuredClone(pod);
    expect(forbiddenMessageOf(() => setOverhead(attributesOf(pod), pod, rc))).toBe(error);
    expect(pod).toEqual(expectedPod ?? before);
    if (error !== undefined) return;
    // What the webhook answers, applied by the API server, gives the same pod.
    expect(patchedThroughWebhook(before, pod).result).toEqual(expectedPod);
    // Reinvocation changes nothing more.
    setOverhead(attributesOf(pod), pod, rc);
    expect(pod).toEqual(expectedPod);
  });

  it('treats equal quantities written differently as the same overhead', () => {
    const pod = newOverheadValidPod('p', 1, {}, false, false);
    pod.spec!.overhead = { cpu: '0.1', memory: '1000m' };
    expect(forbiddenMessageOf(() => setOverhead(attributesOf(pod), pod, smallOverhead))).toBeUndefined();
    expect(pod.spec!.overhead).toEqual({ cpu: '100m', memory: '1' });
  });

  it('rejects an overhead with a resource the RuntimeClass does not name', () => {
    const pod = newOverheadValidPod('p', 1, {}, true, false);
    pod.spec!.overhead!['ephemeral-storage'] = '1Gi';
    expect(forbiddenMessageOf(() => setOverhead(attributesOf(pod), pod, smallOverhead))).toBe(mismatch('p'));
  });

  it('does nothing without a RuntimeClass, or with one that has no overhead', () => {
    for (const rc of [undefined, noOverhead, newRuntimeClass('foo', { overhead: {} })]) {
      const pod = newOverheadValidPod('p', 1, {}, false, true);
      setOverhead(attributesOf(pod), pod, rc);
      expect(pod).toEqual(newOverheadValidPod('p', 1, {}, false, true));
    }
  });

  it('rejects a pod overhead against a RuntimeClass overhead with no podFixed', () => {
    const pod = newOverheadValidPod('p', 1, {}, true, false);
    expect(forbiddenMessageOf(() => setOverhead(attributesOf(pod), pod, newRuntimeClass('foo', { overhead: {} })))).toBe(mismatch('p'));
  });

  it('writes numeric quantities from a YAML cluster state as strings', () => {
    const pod = newOverheadValidPod('p', 1, {}, false, false);
    setOverhead(attributesOf(pod), pod, newRuntimeClass('foo', { overhead: { podFixed: { cpu: 1 as unknown as string } } }));
    expect(pod.spec!.overhead).toEqual({ cpu: '1' });
  });
});

describe('validateOverhead (upstream TestValidateOverhead)', () => {
  it.each<{ name: string; runtimeClass: RuntimeClass | undefined; pod: Pod; error?: string }>([
    {
      name: 'Overhead part of RuntimeClass, no Overhead defined in pod',
      runtimeClass: smallOverhead,
      pod: newOverheadValidPod('no-requirements', 1, {}, false, false),
    },
    {
      name: 'No Overhead in RunntimeClass, Overhead set in pod',
      runtimeClass: noOverhead,
      pod: newOverheadValidPod('no-resource-req-no-overhead', 1, guaranteedResources, true, false),
      error: unaccounted('no-resource-req-no-overhead'),
    },
    {
      name: 'No RunntimeClass, Overhead set in pod',
      runtimeClass: undefined,
      pod: newOverheadValidPod('no-resource-req-no-overhead', 1, guaranteedResources, true, false),
      error: unaccounted('no-resource-req-no-overhead'),
    },
    {
      name: 'No RunntimeClass, empty Overhead set in pod',
      runtimeClass: undefined,
      pod: newOverheadValidPod('no-resource-req-no-overhead', 1, guaranteedResources, false, true),
    },
    {
      name: 'No RunntimeClass, Overhead is nil in pod',
      runtimeClass: undefined,
      pod: newOverheadValidPod('no-resource-req-no-overhead', 1, guaranteedResources, false, false),
    },
    {
      name: 'Non-matching Overheads',
      runtimeClass: bigOverhead,
      pod: newOverheadValidPod('no-resource-req-no-overhead', 1, {}, true, false),
      error: mismatch('no-resource-req-no-overhead'),
    },
    {
      name: 'RuntimeClass is set, empty Overhead is in pod',
      runtimeClass: bigOverhead,
      pod: newOverheadValidPod('no-resource-req-no-overhead', 1, {}, false, true),
    },
    {
      name: 'RuntimeClass is set, Overhead is nil in pod',
      runtimeClass: bigOverhead,
      pod: newOverheadValidPod('no-resource-req-no-overhead', 1, {}, false, false),
    },
    {
      name: 'Matching Overheads',
      runtimeClass: smallOverhead,
      pod: newOverheadValidPod('no-resource-req-no-overhead', 1, {}, true, false),
    },
  ])('$name', ({ runtimeClass: rc, pod, error }) => {
    const before = structuredClone(pod);
    expect(forbiddenMessageOf(() => validateOverhead(attributesOf(pod), pod, rc))).toBe(error);
    expect(pod).toEqual(before);
  });
});
