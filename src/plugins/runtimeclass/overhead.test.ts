// Upstream admission_test.go TestSetOverhead and TestValidateOverhead, every row
// (testdata/upstream-cases.ts). Upstream only checks error/no error; we also check the exact message
// and the pod after setOverhead.
import { describe, expect, it } from 'vitest';
import { attributesOf } from '../../../test/support/attributes.ts';
import { patchedThroughWebhook } from '../../../test/support/patches.ts';
import { forbiddenMessageOf } from '../../../test/support/rejections.ts';
import { setOverhead, validateOverhead } from './overhead.ts';
import { mismatch, newOverheadValidPod, newRuntimeClass, setOverheadCases, validateOverheadCases } from './testdata/upstream-cases.ts';

const smallOverhead = newRuntimeClass('foo', { overhead: { podFixed: { cpu: '100m', memory: '1' } } });
const noOverhead = newRuntimeClass('foo');

describe('setOverhead (upstream TestSetOverhead)', () => {
  it.each(setOverheadCases)('$name', ({ runtimeClass: rc, pod: rowPod, error, expectedPod }) => {
    const pod = structuredClone(rowPod);
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
  it.each(validateOverheadCases)('$name', ({ runtimeClass: rc, pod: rowPod, error }) => {
    const pod = structuredClone(rowPod);
    const before = structuredClone(pod);
    expect(forbiddenMessageOf(() => validateOverhead(attributesOf(pod), pod, rc))).toBe(error);
    expect(pod).toEqual(before);
  });
});
