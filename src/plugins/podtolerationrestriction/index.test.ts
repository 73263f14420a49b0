// Upstream plugin/pkg/admission/podtolerationrestriction/admission_test.go: TestPodAdmission (every
// row, with upstream's reinvocation check), TestHandles and TestIgnoreUpdatingInitializedPod; then
// the exact denials, where the namespace comes from, malformed annotations, QoS and what is ignored.
import { describe, expect, it } from 'vitest';
import { attributesRecord, requestContext } from '../../../test/support/attributes.ts';
import { namespace, recordingLookup } from '../../../test/support/lookups.ts';
import { rejectionOf } from '../../../test/support/rejections.ts';
import type { Attributes } from '../../admission/attributes.ts';
import { explanationOf, FactType } from '../../admission/explanation.ts';
import { allOperations, Operation } from '../../admission/operation.ts';
import type { Toleration } from '../../api/core.ts';
import { newForbidden } from '../../api/status-error.ts';
import { silentLogger } from '../../ports/logger.ts';
import type { Namespace, ResourceLookup } from '../../ports/lookups.ts';
import type { PodTolerationRestrictionConfiguration } from './configuration.ts';
import { podTolerationRestriction } from './index.ts';
import type { PodForTolerations } from './pod.ts';
import { memoryPressure, podAdmissionCases, t } from './testdata/upstream-cases.ts';

const defaultsAnnotation = 'scheduler.alpha.kubernetes.io/defaultTolerations';
const whitelistAnnotation = 'scheduler.alpha.kubernetes.io/tolerationsWhitelist';
const context = requestContext();

/** Upstream's attributes record here: namespace and name "testNamespace". */
const attributesFor = (object: unknown, overrides: Partial<Attributes> = {}): Attributes =>
  attributesRecord(object, { namespace: 'testNamespace', name: 'testNamespace', ...overrides });

/** json.Marshal of upstream's internal api.Toleration: Go field names (decoded case-insensitively). */
const marshalInternal = (tolerations: Toleration[]) =>
  JSON.stringify(
    tolerations.map((x) => ({
      Key: x.key ?? '',
      Operator: x.operator ?? '',
      Value: x.value ?? '',
      Effect: x.effect ?? '',
      TolerationSeconds: x.tolerationSeconds ?? null,
    })),
  );

describe('TestPodAdmission', () => {
  it.each(podAdmissionCases)('$testName', async (row) => {
    const annotations: Record<string, string> = {};
    if (row.namespaceTolerations !== undefined) annotations[defaultsAnnotation] = marshalInternal(row.namespaceTolerations);
    if (row.whitelist !== undefined) annotations[whitelistAnnotation] = marshalInternal(row.whitelist);
    const namespaces = recordingLookup([namespace('testNamespace', annotations)]);
    const configuration: PodTolerationRestrictionConfiguration = {
      default: row.defaultClusterTolerations ?? [],
      whitelist: row.clusterWhitelist ?? [],
    };
    const plugin = podTolerationRestriction(namespaces, configuration, silentLogger);
    const pod = row.pod();
    pod.spec!.tolerations = structuredClone(row.podTolerations);
    const attributes = attributesFor(pod);

    const error = await rejectionOf(() => plugin.admit!(attributes, context));
    expect(error === undefined).toBe(row.admit);
    if (!row.admit) return;
    const merged = (attributes.object as PodForTolerations).spec!.tolerations;
    expect(merged).toEqual(row.mergedTolerations);
    // WithReinvocationTesting: admitting the result again changes nothing.
    await plugin.admit!(attributes, context);
    expect((attributes.object as PodForTolerations).spec!.tolerations).toEqual(row.mergedTolerations);
    expect(await rejectionOf(() => plugin.validate!(attributes, context))).toBeUndefined();
  });
});

describe('TestHandles', () => {
  const plugin = podTolerationRestriction(recordingLookup([]), { default: [], whitelist: [] }, silentLogger);
  it.each(allOperations.map((op) => [op, op === Operation.Create || op === Operation.Update] as const))('%s → %s', (op, expected) => {
    expect(plugin.handles(op)).toBe(expected);
  });
});

describe('TestIgnoreUpdatingInitializedPod', () => {
  it('an UPDATE does not apply namespace defaults (which would conflict), so it is admitted', async () => {
    const namespaces = recordingLookup([namespace('testNamespace', { [defaultsAnnotation]: marshalInternal([t('testValue2')]) })]);
    const plugin = podTolerationRestriction(namespaces, { default: [], whitelist: [] }, silentLogger);
    const pod: PodForTolerations = { metadata: { name: 'testPod', namespace: 'testNamespace' }, spec: { tolerations: [t('testValue1')] } };
    expect(
      await rejectionOf(() => plugin.admit!(attributesFor(pod, { operation: Operation.Update, oldObject: structuredClone(pod) }), context)),
    ).toBeUndefined();
    expect(pod.spec!.tolerations).toEqual([t('testValue1')]);
  });
});

describe('denials and failures, as kube-apiserver words them', () => {
  const plugin = (
    namespaces: ResourceLookup<Namespace>,
    configuration: PodTolerationRestrictionConfiguration = { default: [], whitelist: [] },
  ) => podTolerationRestriction(namespaces, configuration, silentLogger);

  it('a toleration outside the namespace whitelist: a 500 with no reason (upstream returns a plain error)', async () => {
    const namespaces = recordingLookup([namespace('team-a', { [whitelistAnnotation]: '[{"key":"pool","operator":"Equal","value":"a"}]' })]);
    const attributes = attributesFor(
      { spec: { tolerations: [{ key: 'pool', operator: 'Equal', value: 'gpu' }] } },
      { namespace: 'team-a' },
    );
    const error = await rejectionOf(() => plugin(namespaces).validate!(attributes, context));
    expect(error?.status).toEqual({
      status: 'Failure',
      code: 500,
      message: 'pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist',
    });
  });

  it('the cluster whitelist applies when the namespace sets none, and says so', async () => {
    const attributes = attributesFor({ spec: { tolerations: [{ key: 'pool', operator: 'Exists' }] } });
    const error = await rejectionOf(() =>
      plugin(recordingLookup([namespace('testNamespace')]), { default: [], whitelist: [{ key: 'pool', operator: 'Equal', value: 'a' }] })
        .validate!(attributes, context),
    );
    expect(error?.message).toBe('pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist');
  });

  it('a namespace that does not exist: the NotFound, as the live read returns it', async () => {
    const namespaces = recordingLookup([], { server: [] });
    const error = await rejectionOf(() => plugin(namespaces).admit!(attributesFor({ spec: {} }, { namespace: 'gone' }), context));
    expect(error?.status).toEqual({
      status: 'Failure',
      code: 404,
      reason: 'NotFound',
      message: 'namespaces "gone" not found',
      details: { name: 'gone', group: '', kind: 'namespaces' },
    });
    expect(namespaces.calls).toEqual({ cached: ['/gone'], live: ['/gone'] });
  });

  it('any other failure of the live read: an internal error carrying its message', async () => {
    const denied = newForbidden({ group: '', resource: 'namespaces' }, 'team-a', 'User "x" cannot get resource "namespaces"');
    const error = await rejectionOf(() =>
      plugin(recordingLookup([], { liveError: denied })).admit!(attributesFor({ spec: {} }, { namespace: 'team-a' }), context),
    );
    expect(error?.status).toMatchObject({ code: 500, reason: 'InternalError', message: `Internal error occurred: ${denied.message}` });
  });

  it('reads the namespace once per call, even when both the defaults and the whitelist are needed', async () => {
    const namespaces = recordingLookup([], {
      server: [namespace('testNamespace', { [defaultsAnnotation]: '[{"key":"a","operator":"Exists"}]' })],
    });
    await plugin(namespaces).admit!(attributesFor({ spec: {} }), context);
    expect(namespaces.calls).toEqual({ cached: ['/testNamespace'], live: ['/testNamespace'] });
  });

  it.each([
    [defaultsAnnotation, '{"key":"a"}', 'json: cannot unmarshal object into Go value of type []v1.Toleration'],
    [defaultsAnnotation, '[{"key":"a"', 'unexpected end of JSON input'],
    [whitelistAnnotation, "[{'key':'a'}]", "invalid character '\\'' looking for beginning of object key string"],
  ])("a malformed %s annotation fails the request with Go's JSON error (%s)", async (annotation, value, message) => {
    const namespaces = recordingLookup([namespace('testNamespace', { [annotation]: value })]);
    const error = await rejectionOf(() =>
      plugin(namespaces).admit!(attributesFor({ spec: { tolerations: [{ key: 'x', operator: 'Exists' }] } }), context),
    );
    expect(error?.status).toEqual({ status: 'Failure', code: 500, message });
  });

  it('an empty annotation is an empty list: it overrides the cluster default and whitelist', async () => {
    const namespaces = recordingLookup([namespace('testNamespace', { [defaultsAnnotation]: '', [whitelistAnnotation]: 'null' })]);
    const pod: PodForTolerations = { spec: { tolerations: [{ key: 'x', operator: 'Exists' }] } };
    const configuration = { default: [{ key: 'd', operator: 'Exists' }], whitelist: [{ key: 'only', operator: 'Exists' }] };
    expect(await rejectionOf(() => plugin(namespaces, configuration).admit!(attributesFor(pod), context))).toBeUndefined();
    expect(pod.spec!.tolerations).toEqual([{ key: 'x', operator: 'Exists' }]);
  });
});

describe('what the plugin reads and writes', () => {
  const plugin = (
    namespaces: ResourceLookup<Namespace>,
    configuration: PodTolerationRestrictionConfiguration = { default: [], whitelist: [] },
  ) => podTolerationRestriction(namespaces, configuration, silentLogger);

  it('answers from the cache, without a live read', async () => {
    const namespaces = recordingLookup(
      [namespace('testNamespace', { [defaultsAnnotation]: '[{"key":"a","operator":"Exists","value":""}]' })],
      { server: [] },
    );
    const pod: PodForTolerations = { spec: {} };
    await plugin(namespaces).admit!(attributesFor(pod), context);
    expect(namespaces.calls.live).toEqual([]);
    // Written as Go writes a v1 toleration: empty fields omitted.
    expect(pod.spec!.tolerations).toEqual([{ key: 'a', operator: 'Exists' }]);
  });

  it('a BestEffort pod reading nothing is not read at all: no namespace lookup, no change', async () => {
    const namespaces = recordingLookup([]);
    const pod: PodForTolerations = { spec: { containers: [{ name: 'c' }] } };
    await plugin(namespaces).admit!(attributesFor(pod, { operation: Operation.Update, oldObject: {} }), context);
    expect(pod).toEqual({ spec: { containers: [{ name: 'c' }] } });
    expect(namespaces.calls.cached).toEqual([]);
  });

  it.each([
    { name: 'a stated QoS class wins', pod: { status: { qosClass: 'Burstable' }, spec: {} }, memoryPressure: true },
    {
      name: 'memory limits alone',
      pod: { spec: { initContainers: [{ resources: { limits: { memory: '1Gi' } } }] } },
      memoryPressure: true,
    },
    {
      name: 'zero requests are BestEffort',
      pod: { spec: { containers: [{ resources: { requests: { cpu: '0', memory: '0Mi' } } }] } },
      memoryPressure: false,
    },
    {
      name: 'other resources do not count',
      pod: { spec: { containers: [{ resources: { requests: { 'example.com/gpu': '1' } } }] } },
      memoryPressure: false,
    },
    {
      name: "pod-level resources replace the containers'",
      pod: { spec: { resources: { requests: {} }, containers: [{ resources: { requests: { cpu: '1' } } }] } },
      memoryPressure: false,
    },
    { name: 'pod-level cpu', pod: { spec: { resources: { limits: { cpu: '100m' } } } }, memoryPressure: true },
  ])('QoS: $name', async ({ pod, memoryPressure: expected }) => {
    const attributes = attributesFor(structuredClone(pod), { operation: Operation.Update, oldObject: {} });
    await plugin(recordingLookup([namespace('testNamespace')])).admit!(attributes, context);
    expect(((attributes.object as PodForTolerations).spec?.tolerations ?? []).some((x) => x?.key === memoryPressure.key)).toBe(expected);
  });

  it.each([
    { name: 'a subresource', overrides: { subresource: 'status' } },
    { name: 'another resource', overrides: { resource: { group: '', version: 'v1', resource: 'services' } } },
  ])('ignores $name', async ({ overrides }) => {
    const namespaces = recordingLookup([]);
    const pod = { spec: { tolerations: [{ key: 'x', operator: 'Exists' }] } };
    await plugin(namespaces, { default: [{ key: 'd', operator: 'Exists' }], whitelist: [{ key: 'w', operator: 'Exists' }] }).admit!(
      attributesFor(pod, overrides),
      context,
    );
    expect(pod).toEqual({ spec: { tolerations: [{ key: 'x', operator: 'Exists' }] } });
    expect(namespaces.calls.cached).toEqual([]);
  });

  it.each([
    { name: 'a Service body', object: { kind: 'Service', spec: { tolerations: [] } } },
    { name: 'a toleration with a numeric key', object: { spec: { tolerations: [{ key: 1 }] } } },
    { name: 'no body', object: undefined },
  ])('ignores $name, as upstream ignores what is not a Pod', async ({ object }) => {
    expect(await rejectionOf(() => plugin(recordingLookup([])).admit!(attributesFor(object), context))).toBeUndefined();
  });

  // Go's encoding/json decodes a null list entry to the zero value, and kube-apiserver hands
  // upstream's plugin that decoded pod: the pod is checked, not ignored.
  describe('null entries, read as the zero values Go decodes them to', () => {
    const whitelisted = () =>
      recordingLookup([namespace('testNamespace', { [whitelistAnnotation]: '[{"key":"pool","operator":"Exists"}]' })]);

    it('a null toleration beside one outside the whitelist: denied, naming it', async () => {
      const attributes = attributesFor({ spec: { tolerations: [null, { key: 'node-role', operator: 'Exists' }] } });
      const error = await rejectionOf(() => plugin(whitelisted()).validate!(attributes, context));
      expect(error?.message).toBe(
        'pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist',
      );
      // The zero toleration is no more covered by a whitelist of "pool" than upstream's is.
      expect(explanationOf(error!)?.facts).toEqual([
        {
          type: FactType.TolerationWhitelist,
          namespace: 'testNamespace',
          scope: 'namespace',
          tolerations: [{}, { key: 'node-role', operator: 'Exists' }],
          total: 2,
        },
      ]);
    });

    it('a null toleration against a whitelist that covers the zero toleration: admitted, left as it is', async () => {
      const namespaces = recordingLookup([namespace('testNamespace', { [whitelistAnnotation]: '[{"operator":"Exists"}]' })]);
      const pod = { spec: { tolerations: [null] } };
      expect(await rejectionOf(() => plugin(namespaces).validate!(attributesFor(pod), context))).toBeUndefined();
      expect(pod).toEqual({ spec: { tolerations: [null] } });
    });

    it('a null toleration merged with the namespace defaults: written back as the zero toleration', async () => {
      const namespaces = recordingLookup([namespace('testNamespace', { [defaultsAnnotation]: '[{"key":"pool","operator":"Exists"}]' })]);
      const pod: PodForTolerations = { spec: { tolerations: [null] } };
      await plugin(namespaces).admit!(attributesFor(pod), context);
      expect(pod.spec!.tolerations).toEqual([{}, { key: 'pool', operator: 'Exists' }]);
    });

    it('a null container: the others still decide the QoS class', async () => {
      const pod: PodForTolerations = { spec: { containers: [null, { resources: { requests: { cpu: '1' } } }], initContainers: [null] } };
      await plugin(recordingLookup([namespace('testNamespace')])).admit!(
        attributesFor(pod, { operation: Operation.Update, oldObject: {} }),
        context,
      );
      expect(pod.spec!.tolerations).toEqual([memoryPressure]);
    });
  });

  it('merges and whitelists a pod with 40,000 tolerations in linear time', async () => {
    const tolerations = Array.from({ length: 40_000 }, (_, i) => ({ key: `k${i}`, operator: 'Equal', value: 'v', effect: 'NoSchedule' }));
    const namespaces = recordingLookup([
      namespace('testNamespace', {
        [defaultsAnnotation]: '[{"key":"k7","operator":"Exists"}]',
        [whitelistAnnotation]: '[{"operator":"Exists","effect":"NoSchedule"},{"key":"k7","operator":"Exists"}]',
      }),
    ]);
    const pod: PodForTolerations = { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }], tolerations } };
    await plugin(namespaces).admit!(attributesFor(pod), context);
    expect(pod.spec!.tolerations).toHaveLength(40_000 - 1 + 2);
  });
});
