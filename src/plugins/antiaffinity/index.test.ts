// Upstream plugin/pkg/admission/antiaffinity/admission_test.go: TestInterPodAffinityAdmission,
// TestHandles and TestOtherResources, every row; then the exact message of a denial.
import { describe, expect, it } from 'vitest';
import { attributesRecord, requestContext } from '../../../test/support/attributes.ts';
import { syncRejectionOf } from '../../../test/support/rejections.ts';
import type { Attributes } from '../../admission/attributes.ts';
import { allOperations, Operation } from '../../admission/operation.ts';
import { systemClock, systemRandom } from '../../ports/clock.ts';
import { silentLogger } from '../../ports/logger.ts';
import { definition, pluginName } from './index.ts';
import { interPodAffinityCases, term } from './testdata/upstream-cases.ts';

const plugin = definition.create({ logger: silentLogger, clock: systemClock, random: systemRandom });
const context = requestContext();

/** Upstream's attributes record here: namespace "foo", name "name". */
const attributesFor = (object: unknown, overrides: Partial<Attributes> = {}): Attributes =>
  attributesRecord(object, { namespace: 'foo', name: 'name', ...overrides });

const rejection = (attributes: Attributes) => syncRejectionOf(() => plugin.validate!(attributes, context));

describe('TestInterPodAffinityAdmission', () => {
  it.each(interPodAffinityCases)('$name', ({ affinity, errorExpected }) => {
    // Upstream passes the operation "ignored": validation does not look at it.
    const error = rejection(attributesFor({ spec: { affinity } }));
    expect(error !== undefined).toBe(errorExpected);
  });
});

describe('TestHandles', () => {
  it.each(allOperations.map((op) => [op, op === Operation.Create || op === Operation.Update] as const))('%s → %s', (op, expected) => {
    expect(plugin.handles(op)).toBe(expected);
    expect(plugin.admit).toBeUndefined();
    expect(plugin.name).toBe(pluginName);
  });
});

describe('TestOtherResources', () => {
  const pod = {
    metadata: { name: 'testname', namespace: 'testnamespace' },
    spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('zone')] } } },
  };
  it.each([
    { name: 'non-pod resource', kind: 'Foo', resource: 'foos', subresource: '', object: pod, expectError: false },
    { name: 'pod subresource', kind: 'Pod', resource: 'pods', subresource: 'eviction', object: pod, expectError: false },
    {
      name: 'non-pod object',
      kind: 'Pod',
      resource: 'pods',
      subresource: '',
      object: { apiVersion: 'v1', kind: 'Service' },
      expectError: true,
    },
  ])('$name', ({ kind, resource, subresource, object, expectError }) => {
    const error = rejection(
      attributesFor(object, {
        namespace: 'testnamespace',
        name: 'testname',
        kind: { group: '', version: 'version', kind },
        resource: { group: '', version: 'version', resource },
        subresource,
      }),
    );
    expect(error !== undefined).toBe(expectError);
    if (expectError)
      expect(error!.status).toEqual({
        status: 'Failure',
        code: 400,
        reason: 'BadRequest',
        message: 'Resource was marked with kind Pod but was unable to be converted',
      });
  });
});

describe('what a denial says', () => {
  it('names the pod and the topology key, as a 403', () => {
    const error = rejection(
      attributesFor({
        metadata: { name: 'web-1' },
        spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('topology.kubernetes.io/zone')] } } },
      }),
    );
    expect(error!.status).toEqual({
      status: 'Failure',
      code: 403,
      reason: 'Forbidden',
      message:
        'pods "web-1" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.kubernetes.io/zone but only key kubernetes.io/hostname is allowed',
      details: { name: 'web-1', group: '', kind: 'pods' },
    });
  });

  it("uses the pod's own name, which is empty before generateName runs", () => {
    const error = rejection(
      attributesFor(
        {
          metadata: { generateName: 'web-' },
          spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{}] } } },
        },
        { name: '' },
      ),
    );
    expect(error!.message).toBe(
      'pods is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey  but only key kubernetes.io/hostname is allowed',
    );
  });

  it("a null term is Go's zero term: its empty topology key is denied (403), not a 400", () => {
    const error = rejection(
      attributesFor({
        metadata: { name: 'web-1' },
        spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('kubernetes.io/hostname'), null] } } },
      }),
    );
    expect(error!.code).toBe(403);
    expect(error!.message).toBe(
      'pods "web-1" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey  but only key kubernetes.io/hostname is allowed',
    );
  });

  it('checks UPDATE too, and a wrongly shaped term list is a 400', () => {
    const update = attributesFor(
      { spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('zone')] } } } },
      { operation: Operation.Update, oldObject: {} },
    );
    expect(rejection(update)!.code).toBe(403);
    expect(
      rejection(attributesFor({ spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} } } } }))!.code,
    ).toBe(400);
  });
});
