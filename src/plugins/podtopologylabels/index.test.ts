// Upstream admission_test.go TestPodTopology, every row, each the three ways upstream runs it (a pod
// UPDATE and a pod CREATE with spec.nodeName, and a Binding), admitted twice as upstream's
// reinvocation tester does; then the cache's readiness, the requests upstream leaves alone, bodies
// of the wrong type, and the webhook's patch.
import { describe, expect, it } from 'vitest';
import { attributesRecord, requestContext } from '../../../test/support/attributes.ts';
import { lookupsOf, recordingLookup } from '../../../test/support/lookups.ts';
import { patchedThroughWebhook } from '../../../test/support/patches.ts';
import { rejectionOf } from '../../../test/support/rejections.ts';
import type { Attributes } from '../../admission/attributes.ts';
import { allOperations, Operation } from '../../admission/operation.ts';
import { type AdmissionPlugin, createPlugin } from '../../admission/plugin.ts';
import { Feature } from '../../api/feature-gates.ts';
import type { KubeObject } from '../../api/types.ts';
import { systemClock, systemRandom } from '../../ports/clock.ts';
import { type FeatureGates, featureGatesAt } from '../../ports/feature-gates.ts';
import { silentLogger } from '../../ports/logger.ts';
import type { Node, ResourceLookup } from '../../ports/lookups.ts';
import { definition, pluginName, podTopologyLabels, readyWaitMs } from './index.ts';
import { binding, namespace, node, nodeName, pod, podName, podTopologyCases } from './testdata/upstream-cases.ts';

const v1_37 = { major: 1, minor: 37 };
const gates = (enabled: boolean): FeatureGates => featureGatesAt(v1_37, { PodTopologyLabelsAdmission: enabled });
const pluginOver = (nodes: ResourceLookup<Node>, enabled = true): AdmissionPlugin =>
  createPlugin(
    definition,
    { logger: silentLogger, clock: systemClock, random: systemRandom, lookups: lookupsOf({ nodes }), featureGates: gates(enabled) },
    'test',
  );

/** Upstream's attributes: version "version", the pod's namespace and name. */
const podRequest = (object: unknown, oldObject?: unknown): Attributes =>
  attributesRecord(object, {
    operation: oldObject === undefined ? Operation.Create : Operation.Update,
    kind: { group: '', version: 'version', kind: 'Pod' },
    resource: { group: '', version: 'version', resource: 'pods' },
    namespace,
    name: podName,
    oldObject: oldObject as KubeObject | undefined,
  });
const bindingRequest = (object: unknown, overrides: Partial<Attributes> = {}): Attributes =>
  attributesRecord(object, {
    kind: { group: '', version: 'version', kind: 'Binding' },
    resource: { group: '', version: 'version', resource: 'pods' },
    subresource: 'binding',
    namespace,
    name: podName,
    ...overrides,
  });

/**
 * admissiontesting.WithReinvocationTesting: admit, then admit what came out again; the second run
 * must change nothing. As upstream, the plugin's admit is called whatever the operation.
 */
async function admitWithReinvocation(plugin: AdmissionPlugin, attributes: Attributes): Promise<void> {
  await plugin.admit!(attributes, requestContext());
  const once = structuredClone(attributes.object);
  await plugin.admit!(attributes, requestContext());
  expect(attributes.object, 'the second admission changed the object').toEqual(once);
}

/** apiequality.Semantic.DeepEqual on labels: no map and an empty one are equal. */
const labelsOf = (object: KubeObject | undefined) => object?.metadata?.labels ?? {};

describe(`${pluginName} (upstream TestPodTopology)`, () => {
  describe.each(podTopologyCases)('$name', ({ targetNodeLabels, existingBindingLabels, expectedBindingLabels, featureDisabled }) => {
    const plugin = () => pluginOver(recordingLookup([node(targetNodeLabels)]), !featureDisabled);

    // Upstream checks only that these admit; the labels they end with are its Binding's.
    it('using Pod directly (update)', async () => {
      const attributes = podRequest(pod(existingBindingLabels, nodeName), pod(existingBindingLabels));
      await admitWithReinvocation(plugin(), attributes);
      expect(labelsOf(attributes.object)).toEqual(expectedBindingLabels ?? {});
    });

    it('using Pod directly (create)', async () => {
      const attributes = podRequest(pod(existingBindingLabels, nodeName));
      await admitWithReinvocation(plugin(), attributes);
      expect(labelsOf(attributes.object)).toEqual(expectedBindingLabels ?? {});
    });

    it('using Binding subresource', async () => {
      const attributes = bindingRequest(binding(existingBindingLabels));
      await admitWithReinvocation(plugin(), attributes);
      expect(labelsOf(attributes.object)).toEqual(expectedBindingLabels ?? {});
    });
  });
});

describe(`${pluginName}: what it admits`, () => {
  const zoned = () => recordingLookup([node({ 'topology.kubernetes.io/zone': 'zone1', 'topology.kubernetes.io/region': 'region1' })]);

  it('mutates CREATE only, never validates, and needs the lookups and the feature gates', () => {
    const plugin = pluginOver(zoned());
    expect(allOperations.filter((op) => plugin.handles(op))).toEqual([Operation.Create]);
    expect(plugin.validate).toBeUndefined();
    expect(plugin.mutates).toEqual([['metadata', 'labels']]);
    expect(definition.needs).toEqual(['lookups', 'featureGates']);
    expect(definition.lookups).toEqual(['nodes']);
    expect(() => createPlugin(definition, { logger: silentLogger, clock: systemClock, random: systemRandom }, 'test')).toThrow(
      'admission plugin PodTopologyLabels needs a lookups, which the test backend does not provide',
    );
  });

  it('follows the gate of the cluster version: off in 1.34 (alpha), on from 1.35 (beta)', async () => {
    for (const [minor, labelled] of [
      [32, false],
      [33, false],
      [34, false],
      [35, true],
      [37, true],
    ] as const) {
      const plugin = podTopologyLabels(zoned(), featureGatesAt({ major: 1, minor }));
      const attributes = bindingRequest(binding(undefined));
      await plugin.admit!(attributes, requestContext());
      expect(labelsOf(attributes.object), `1.${minor}`).toEqual(
        labelled ? { 'topology.kubernetes.io/zone': 'zone1', 'topology.kubernetes.io/region': 'region1' } : {},
      );
    }
  });

  it('keeps the other labels of the Binding and of the pod', async () => {
    for (const attributes of [bindingRequest(binding({ app: 'web' })), podRequest(pod({ app: 'web' }, nodeName))]) {
      await pluginOver(zoned()).admit!(attributes, requestContext());
      expect(labelsOf(attributes.object)).toEqual({
        app: 'web',
        'topology.kubernetes.io/zone': 'zone1',
        'topology.kubernetes.io/region': 'region1',
      });
    }
  });

  it.each([
    {
      name: 'a Binding to a node the cache does not have',
      attributes: () => bindingRequest(binding(undefined, { kind: 'Node', name: 'gone' })),
    },
    { name: 'a pod on a node the cache does not have', attributes: () => podRequest(pod(undefined, 'gone')) },
    {
      name: 'a Binding to something else than a Node',
      attributes: () => bindingRequest(binding(undefined, { kind: 'Machine', name: nodeName })),
    },
    { name: 'a Binding whose target has no kind', attributes: () => bindingRequest(binding(undefined, { name: nodeName })) },
    { name: 'a pod not scheduled yet', attributes: () => podRequest(pod(undefined)) },
    { name: 'a pod with an empty nodeName', attributes: () => podRequest(pod(undefined, '')) },
    {
      name: 'pods/status',
      attributes: () =>
        bindingRequest(pod(undefined, nodeName), { subresource: 'status', kind: { group: '', version: 'v1', kind: 'Pod' } }),
    },
    {
      name: 'pods in another group',
      attributes: () => bindingRequest(binding(undefined), { resource: { group: 'example.com', version: 'v1', resource: 'pods' } }),
    },
    {
      name: 'another resource',
      attributes: () =>
        bindingRequest(binding(undefined), { resource: { group: '', version: 'v1', resource: 'bindings' }, subresource: '' }),
    },
  ])('leaves $name as it came', async ({ attributes }) => {
    const request = attributes();
    const before = structuredClone(request.object);
    await pluginOver(zoned()).admit!(request, requestContext());
    expect(request.object).toEqual(before);
  });

  it('reads a node by name alone, from the cache, never live', async () => {
    const nodes = zoned();
    await pluginOver(nodes).admit!(bindingRequest(binding(undefined)), requestContext());
    await pluginOver(nodes).admit!(podRequest(pod(undefined, 'gone')), requestContext());
    expect(nodes.calls).toEqual({ cached: [`/${nodeName}`, '/gone'], live: [] });
  });

  it('sends a patch that adds the labels, and none on the second run', async () => {
    const original = { apiVersion: 'v1', kind: 'Binding', ...binding(undefined) };
    const attributes = bindingRequest(structuredClone(original));
    await pluginOver(zoned()).admit!(attributes, requestContext());
    const { patch, result } = patchedThroughWebhook(original, attributes.object);
    expect(patch).toEqual([
      {
        op: 'add',
        path: '/metadata/labels',
        value: { 'topology.kubernetes.io/zone': 'zone1', 'topology.kubernetes.io/region': 'region1' },
      },
    ]);
    expect(result).toEqual(attributes.object);
    const again = structuredClone(attributes.object);
    await pluginOver(zoned()).admit!(attributes, requestContext());
    expect(patchedThroughWebhook(again, attributes.object).patch).toEqual([]);
  });
});

describe(`${pluginName}: the nodes cache not yet synced (upstream WaitForReady)`, () => {
  it("waits up to 10 s, then refuses with upstream's admission.NewForbidden", async () => {
    const waits: number[] = [];
    const nodes = recordingLookup([node({ 'topology.kubernetes.io/zone': 'zone1' })], {
      synced: async (waitMs) => {
        waits.push(waitMs);
        return false;
      },
    });
    const rejected = await rejectionOf(() => pluginOver(nodes).admit!(bindingRequest(binding(undefined)), requestContext()));
    expect(rejected?.status).toEqual({
      status: 'Failure',
      code: 403,
      reason: 'Forbidden',
      message: 'pods "testPod" is forbidden: not yet ready to handle request',
      details: { name: 'testPod', group: '', kind: 'pods' },
    });
    expect(waits).toEqual([readyWaitMs]);
    expect(readyWaitMs).toBe(10_000);
    expect(nodes.calls.cached).toEqual([]);
  });

  it('waits even for a pod not scheduled yet, as upstream waits before looking at it', async () => {
    const nodes = recordingLookup<Node>([], { synced: async () => false });
    const rejected = await rejectionOf(() => pluginOver(nodes).admit!(podRequest(pod(undefined)), requestContext()));
    expect(rejected?.message).toBe('pods "testPod" is forbidden: not yet ready to handle request');
  });

  it('does not wait where the gate is off or the request is not for the plugin', async () => {
    let asked = 0;
    const nodes = recordingLookup<Node>([], {
      synced: async () => {
        asked++;
        return false;
      },
    });
    await pluginOver(nodes, false).admit!(bindingRequest(binding(undefined)), requestContext());
    await pluginOver(nodes).admit!(bindingRequest(binding(undefined), { subresource: 'status' }), requestContext());
    expect(asked).toBe(0);
  });

  it('labels once the cache has synced', async () => {
    const nodes = recordingLookup([node({ 'topology.kubernetes.io/region': 'region1' })], { synced: async () => true });
    const attributes = bindingRequest(binding(undefined));
    await pluginOver(nodes).admit!(attributes, requestContext());
    expect(labelsOf(attributes.object)).toEqual({ 'topology.kubernetes.io/region': 'region1' });
  });

  it('answers a request whose deadline passed while waiting as given up, not forbidden', async () => {
    const controller = new AbortController();
    const nodes = recordingLookup<Node>([], {
      synced: async () => {
        controller.abort(new DOMException('deadline', 'TimeoutError'));
        return false;
      },
    });
    const rejected = await rejectionOf(() =>
      pluginOver(nodes).admit!(bindingRequest(binding(undefined)), requestContext(controller.signal)),
    );
    expect(rejected?.status).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: admission request deadline exceeded while waiting for the nodes cache',
    });
  });
});

describe(`${pluginName}: bodies of the wrong type (upstream's failed type assertions, a plain error)`, () => {
  const nodes = () => recordingLookup([node({ 'topology.kubernetes.io/zone': 'zone1' })]);
  it.each([
    {
      name: 'a Pod body on pods/binding',
      request: () => bindingRequest({ kind: 'Pod', ...pod(undefined, nodeName) }),
      message: 'expected Binding but got Binding',
    },
    {
      name: 'a Binding target that is not an object',
      request: () => bindingRequest({ metadata: { name: podName }, target: 'node' }),
      message: 'expected Binding but got Binding',
    },
    {
      name: 'a Binding body on pods',
      request: () => podRequest({ kind: 'Binding', ...binding(undefined) }),
      message: 'expected Pod but got *core.Binding',
    },
    { name: 'no body on pods', request: () => podRequest(undefined), message: 'expected Pod but got <nil>' },
    {
      name: 'labels that are not a map of strings',
      request: () => podRequest({ metadata: { name: podName, labels: { a: 1 } }, spec: { nodeName } }),
      message: 'expected Pod but got *core.Pod that does not decode',
    },
    {
      name: 'a nodeName that is not a string',
      request: () => podRequest({ spec: { nodeName: 7 } }),
      message: 'expected Pod but got *core.Pod that does not decode',
    },
  ])('$name: $message', async ({ request, message }) => {
    const rejected = await rejectionOf(() => pluginOver(nodes()).admit!(request(), requestContext()));
    expect(rejected?.status).toEqual({ status: 'Failure', code: 500, message });
  });

  it('lets them through with the gate off, as upstream checks the gate first', async () => {
    await expect(pluginOver(nodes(), false).admit!(podRequest(undefined), requestContext())).resolves.toBeUndefined();
  });
});

it('reads the gate per request', async () => {
  let reads = 0;
  const featureGates: FeatureGates = {
    enabled: (feature) => {
      reads++;
      return feature === Feature.PodTopologyLabelsAdmission;
    },
  };
  const plugin = podTopologyLabels(recordingLookup<Node>([]), featureGates);
  await plugin.admit!(bindingRequest(binding(undefined)), requestContext());
  await plugin.admit!(bindingRequest(binding(undefined)), requestContext());
  expect(reads).toBe(2);
});
