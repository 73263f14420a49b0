// Upstream plugin/pkg/admission/extendedresourcetoleration/admission_test.go: TestAdmit (every row)
// and TestHandles; then the requests upstream leaves alone, bodies that are not pods, and a pod with
// tens of thousands of tolerations and resources.
import { describe, expect, it } from 'vitest';
import { attributesRecord, requestContext } from '../../../test/support/attributes.ts';
import type { Attributes } from '../../admission/attributes.ts';
import { allOperations, Operation } from '../../admission/operation.ts';
import type { Pod, Toleration } from '../../api/core.ts';
import { isStatusError } from '../../api/status-error.ts';
import { systemClock, systemRandom } from '../../ports/clock.ts';
import { silentLogger } from '../../ports/logger.ts';
import { isExtendedResourceName } from './extended-resource.ts';
import { definition, pluginName } from './index.ts';
import {
  admitCases,
  containerRequestingCPU,
  containerRequestingExtendedResource1,
  extendedResource1,
  tolerationFor,
} from './testdata/upstream-cases.ts';

const plugin = definition.create({ logger: silentLogger, clock: systemClock, random: systemRandom });
const context = requestContext();

/** Upstream's attributes record here: namespace "foo", name "name". */
const attributesFor = (object: unknown, overrides: Partial<Attributes> = {}): Attributes =>
  attributesRecord(object, { namespace: 'foo', name: 'name', ...overrides });

describe('TestAdmit', () => {
  it.each(admitCases)('$description', ({ spec, expected }) => {
    const pod: Pod = { spec: structuredClone(spec) };
    // Upstream passes the operation "ignored": the plugin does not look at it.
    plugin.admit!(attributesFor(pod), context);
    expect(pod.spec!.tolerations).toEqual(expected);
  });
});

describe('TestHandles', () => {
  it.each(allOperations.map((op) => [op, op === Operation.Create || op === Operation.Update] as const))('%s → %s', (op, expected) => {
    expect(plugin.handles(op)).toBe(expected);
    expect(plugin.validate).toBeUndefined();
    expect(plugin.name).toBe(pluginName);
  });
});

describe('requests upstream leaves alone', () => {
  it.each([
    { name: 'a subresource', overrides: { subresource: 'status' } },
    { name: 'another resource', overrides: { resource: { group: '', version: 'v1', resource: 'services' } } },
    { name: 'pods in another group', overrides: { resource: { group: 'metrics.k8s.io', version: 'v1beta1', resource: 'pods' } } },
  ])('$name, even when the body is not a pod', ({ overrides }) => {
    const pod = { spec: { containers: [containerRequestingExtendedResource1] } };
    plugin.admit!(attributesFor(pod, overrides), context);
    expect(pod).toEqual({ spec: { containers: [containerRequestingExtendedResource1] } });
    expect(() => plugin.admit!(attributesFor('not a pod', overrides), context)).not.toThrow();
  });
});

describe('bodies that are not a pod', () => {
  it.each([
    { name: 'no object', object: undefined, message: 'expected *core.Pod but got <nil>' },
    { name: 'a Service', object: { kind: 'Service', spec: {} }, message: 'expected *core.Pod but got *core.Service' },
    {
      name: 'requests that are a list',
      object: { spec: { containers: [{ resources: { requests: [] } }] } },
      message: 'expected *core.Pod but got *core.Pod that does not decode',
    },
  ])('$name → 400', ({ object, message }) => {
    try {
      plugin.admit!(attributesFor(object), context);
      expect.unreachable();
    } catch (error) {
      if (!isStatusError(error)) throw error;
      expect(error.status).toEqual({ status: 'Failure', code: 400, reason: 'BadRequest', message });
    }
  });
});

// Go's encoding/json decodes a null list entry to the zero value; kube-apiserver hands upstream's
// plugin that decoded pod.
describe('null entries, read as the zero values Go decodes them to', () => {
  it.each([
    {
      name: "a null toleration beside a requested extended resource: kept as the zero toleration, the resource's added",
      spec: { containers: [containerRequestingExtendedResource1], tolerations: [null] },
      expected: [{}, tolerationFor(extendedResource1)],
    },
    {
      name: 'a null container: requests nothing',
      spec: { containers: [null, containerRequestingExtendedResource1] },
      expected: [tolerationFor(extendedResource1)],
    },
    {
      name: 'a null init container: requests nothing',
      spec: { containers: [containerRequestingCPU], initContainers: [null] },
      expected: undefined,
    },
    {
      name: 'a null toleration and no extended resource: left as it is',
      spec: { containers: [containerRequestingCPU], tolerations: [null] },
      expected: [null],
    },
  ])('$name', ({ spec, expected }) => {
    const pod = { spec: structuredClone(spec) };
    plugin.admit!(attributesFor(pod), context);
    expect(pod.spec.tolerations).toEqual(expected);
  });
});

describe('IsExtendedResourceName', () => {
  it.each([
    ['example.com/device', true],
    ['cpu', false],
    ['kubernetes.io/something', false],
    ['example.kubernetes.io/thing', false],
    ['requests.example.com/x', false],
    [`example.com/${'a'.repeat(63)}`, true],
    [`example.com/${'a'.repeat(64)}`, false],
    // "requests." lengthens the prefix: 244 characters still fit a DNS subdomain after it, 245 do not.
    [`${'a'.repeat(60)}.${'a'.repeat(60)}.${'a'.repeat(60)}.${'a'.repeat(61)}/x`, true],
    [`${'a'.repeat(60)}.${'a'.repeat(60)}.${'a'.repeat(60)}.${'a'.repeat(62)}/x`, false],
    ['example.com/bad_', false],
    ['a/b/c', false],
  ])('%s → %s', (name, expected) => {
    expect(isExtendedResourceName(name)).toBe(expected);
  });
});

it('replaces every matching toleration (dropping tolerationSeconds) and stays linear on a huge pod', () => {
  const resources = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`example.com/r${i}`, '1']));
  const tolerations: Toleration[] = Array.from({ length: 40_000 }, (_, i) => ({
    key: `example.com/r${i % 4_000}`,
    operator: 'Exists',
    effect: 'NoSchedule',
    tolerationSeconds: 5,
  }));
  const pod: Pod = { spec: { containers: [{ name: 'c', resources: { requests: resources } }], tolerations } };
  plugin.admit!(attributesFor(pod), context);
  const result = pod.spec!.tolerations!;
  expect(result).toHaveLength(40_000);
  expect(result[0]).toEqual(tolerationFor('example.com/r0'));
  // r2000..r3999 are not requested: left as they were.
  expect(result[2_000]).toEqual({ key: 'example.com/r2000', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 });
});
