// Upstream admission_test.go TestValidateInitialization, TestAdmit and TestValidate, every row
// (testdata/upstream-cases.ts), through the plugin as the chain calls it; then the lookup policy
// (cache first, live only on a miss), reinvocation, the webhook's JSON patch, and the edges
// upstream's code takes.
// No upstream row is skipped (TestSetOverhead, TestValidateOverhead and TestSetScheduling are in
// overhead.test.ts and scheduling.test.ts).
import { describe, expect, it } from 'vitest';
import { attributesOf, requestContext } from '../../../test/support/attributes.ts';
import { lookupsOf, recordingLookup } from '../../../test/support/lookups.ts';
import { patchedThroughWebhook } from '../../../test/support/patches.ts';
import { rejectionOf } from '../../../test/support/rejections.ts';
import type { Attributes } from '../../admission/attributes.ts';
import { allOperations, Operation } from '../../admission/operation.ts';
import { type AdmissionPlugin, createPlugin } from '../../admission/plugin.ts';
import type { Pod } from '../../api/core.ts';
import { newForbidden } from '../../api/status-error.ts';
import { systemClock, systemRandom } from '../../ports/clock.ts';
import { silentLogger } from '../../ports/logger.ts';
import type { ResourceLookup, RuntimeClass } from '../../ports/lookups.ts';
import { definition, pluginName, runtimeClass } from './index.ts';
import {
  admitCases,
  admitPod,
  admitRuntimeClassName,
  newRuntimeClass,
  validateCases,
  validateInitializationCases,
} from './testdata/upstream-cases.ts';

const basePorts = { logger: silentLogger, clock: systemClock, random: systemRandom };
const pluginWith = (lookup: ResourceLookup<RuntimeClass>): AdmissionPlugin => runtimeClass(lookup);

describe(`${pluginName} (upstream TestValidateInitialization)`, () => {
  // Upstream needs a lister and a client; both are our one Lookups port (cached and live).
  it.each(validateInitializationCases)('$name', ({ lister, client, expectError }) => {
    const lookups = lister && client ? lookupsOf({ runtimeClasses: recordingLookup([]) }) : undefined;
    const create = () => createPlugin(definition, { ...basePorts, lookups }, 'test');
    if (expectError) expect(create).toThrow('admission plugin RuntimeClass needs a lookups, which the test backend does not provide');
    else expect(create().name).toBe('RuntimeClass');
    expect(definition.needs).toEqual(['lookups']);
  });
});

describe(`${pluginName} (upstream TestAdmit)`, () => {
  it.each(admitCases)('$name', async ({ lister, client, error, liveCalls }) => {
    const lookups = recordingLookup(lister, { server: client });
    // Upstream's attributes carry neither namespace nor name: the message names the object.
    const attributes = attributesOf(admitPod(), { namespace: '', name: '' });
    const rejected = await rejectionOf(() => pluginWith(lookups).admit!(attributes, requestContext()));
    expect(rejected?.message).toBe(error);
    if (error !== undefined)
      expect(rejected?.status).toMatchObject({ code: 403, reason: 'Forbidden', details: { name: 'podname', kind: 'pods', group: '' } });
    expect(lookups.calls.cached).toEqual([`/${admitRuntimeClassName}`]);
    expect(lookups.calls.live).toHaveLength(liveCalls);
    expect(attributes.object).toEqual(admitPod());
  });
});

describe(`${pluginName} (upstream TestValidate)`, () => {
  // Upstream's pods here name no RuntimeClass, so the row's RuntimeClass is never looked up; we
  // put it in the cluster state anyway and check that nothing asks for it.
  it.each(validateCases)('$name', async ({ runtimeClass: rc, pod, error }) => {
    const lookups = recordingLookup([rc], { server: [rc] });
    const rejected = await rejectionOf(() => pluginWith(lookups).validate!(attributesOf(structuredClone(pod)), requestContext()));
    expect(rejected?.message).toBe(error);
    expect(lookups.calls).toEqual({ cached: [], live: [] });
  });
});

describe(`${pluginName} end to end on the local backend`, () => {
  const kata = newRuntimeClass('kata', {
    handler: 'kata',
    overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
    scheduling: {
      nodeSelector: { 'runtime/kata': 'true' },
      tolerations: [{ key: 'runtime', operator: 'Equal', value: 'kata', effect: 'NoSchedule' }],
    },
  });
  const plugin = pluginWith(recordingLookup([kata, newRuntimeClass('runc', { handler: 'runc' })]));
  const kataPod = (): Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      runtimeClassName: 'kata',
      containers: [{ name: 'web', image: 'nginx' }],
      nodeSelector: { zone: 'a' },
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    },
  });
  const kataPodAdmitted = (): Pod => {
    const pod = kataPod();
    pod.spec!.overhead = { cpu: '250m', memory: '120Mi' };
    pod.spec!.nodeSelector = { zone: 'a', 'runtime/kata': 'true' };
    pod.spec!.tolerations = [...pod.spec!.tolerations!, { key: 'runtime', operator: 'Equal', value: 'kata', effect: 'NoSchedule' }];
    return pod;
  };

  it('sets overhead, node selector and tolerations; the webhook patch yields the same pod; a second run changes nothing; validation accepts it', async () => {
    const attributes = attributesOf(kataPod());
    await plugin.admit!(attributes, requestContext());
    expect(attributes.object).toEqual(kataPodAdmitted());
    const { patch, result } = patchedThroughWebhook(kataPod(), attributes.object);
    expect(result).toEqual(kataPodAdmitted());
    expect(patch.length).toBeGreaterThan(0);

    await plugin.admit!(attributes, requestContext());
    expect(attributes.object).toEqual(kataPodAdmitted());
    expect(patchedThroughWebhook(kataPodAdmitted(), attributes.object).patch).toEqual([]);

    await expect(plugin.validate!(attributes, requestContext())).resolves.toBeUndefined();
  });

  it('sends no patch for a RuntimeClass with neither overhead nor scheduling', async () => {
    const pod: Pod = {
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'shop' },
      spec: { runtimeClassName: 'runc', containers: [{ name: 'c' }] },
    };
    const attributes = attributesOf(structuredClone(pod));
    await plugin.admit!(attributes, requestContext());
    expect(patchedThroughWebhook(pod, attributes.object).patch).toEqual([]);
  });

  it('rejects in validation an overhead the RuntimeClass does not define', async () => {
    const pod = kataPodAdmitted();
    pod.spec!.overhead = { cpu: '1' };
    const rejected = await rejectionOf(() => plugin.validate!(attributesOf(pod), requestContext()));
    expect(rejected?.message).toBe(`pods "web" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`);
  });

  it('rejects a pod whose own overhead differs, in admission, and leaves it untouched', async () => {
    const pod = kataPod();
    pod.spec!.overhead = { cpu: '1' };
    const attributes = attributesOf(structuredClone(pod));
    const rejected = await rejectionOf(() => plugin.admit!(attributes, requestContext()));
    expect(rejected?.message).toBe(`pods "web" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`);
    expect(attributes.object).toEqual(pod);
  });

  it('leaves the pod untouched when scheduling conflicts after the overhead was worked out', async () => {
    const pod = kataPod();
    pod.spec!.nodeSelector = { 'runtime/kata': 'false' };
    const attributes = attributesOf(structuredClone(pod));
    const rejected = await rejectionOf(() => plugin.admit!(attributes, requestContext()));
    expect(rejected?.message).toBe(
      'pods "web" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[runtime/kata] = true; pod.spec.nodeSelector[runtime/kata] = false',
    );
    expect(attributes.object).toEqual(pod);
  });

  it('rejects an unknown RuntimeClass in validation too', async () => {
    const pod: Pod = { metadata: { name: 'p' }, spec: { runtimeClassName: 'gvisor' } };
    const rejected = await rejectionOf(() => plugin.validate!(attributesOf(pod), requestContext()));
    expect(rejected?.message).toBe('pods "p" is forbidden: pod rejected: RuntimeClass "gvisor" not found');
  });
});

describe(`${pluginName} lookup policy`, () => {
  const kata = newRuntimeClass('kata', { overhead: { podFixed: { cpu: '1' } } });
  const pod = (): Pod => ({ metadata: { name: 'p', namespace: 'ns' }, spec: { runtimeClassName: 'kata' } });

  it('never reads live when the cache has the class, in either phase', async () => {
    const lookups = recordingLookup([kata], { server: [kata] });
    const plugin = pluginWith(lookups);
    const attributes = attributesOf(pod());
    await plugin.admit!(attributes, requestContext());
    await plugin.validate!(attributes, requestContext());
    expect(lookups.calls).toEqual({ cached: ['/kata', '/kata'], live: [] });
  });

  it('uses the live copy when the cache lags', async () => {
    const lookups = recordingLookup([], { server: [kata] });
    const attributes = attributesOf(pod());
    await pluginWith(lookups).admit!(attributes, requestContext());
    expect((attributes.object as Pod).spec!.overhead).toEqual({ cpu: '1' });
    expect(lookups.calls).toEqual({ cached: ['/kata'], live: ['/kata'] });
  });

  it('passes the request signal to the live read', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const cluster = recordingLookup([kata]);
    const lookup: ResourceLookup<RuntimeClass> = {
      cached: () => undefined,
      live: async (namespace, name, signal) => {
        seen = signal;
        return cluster.live(namespace, name, signal);
      },
    };
    await pluginWith(lookup).admit!(attributesOf(pod()), requestContext(controller.signal));
    expect(seen).toBe(controller.signal);
  });

  it('passes an API status from the live read through unchanged', async () => {
    const denied = newForbidden(
      { group: 'node.k8s.io', resource: 'runtimeclasses' },
      'kata',
      'User "system:serviceaccount:x:y" cannot get resource "runtimeclasses"',
    );
    const lookups = recordingLookup([], { server: [], liveError: denied });
    expect(await rejectionOf(() => pluginWith(lookups).admit!(attributesOf(pod()), requestContext()))).toBe(denied);
  });

  it("turns any other live-read error into the API server's reason-less 500", async () => {
    const lookups = recordingLookup([], { server: [], liveError: new Error('dial tcp 10.0.0.1:443: connect: connection refused') });
    const rejected = await rejectionOf(() => pluginWith(lookups).admit!(attributesOf(pod()), requestContext()));
    expect(rejected?.status).toEqual({ status: 'Failure', code: 500, message: 'dial tcp 10.0.0.1:443: connect: connection refused' });
  });

  it('does not send a nameless live read (client-go refuses it)', async () => {
    const lookups = recordingLookup([], { server: [] });
    const attributes = attributesOf({ metadata: { name: 'p' }, spec: { runtimeClassName: '' } });
    const rejected = await rejectionOf(() => pluginWith(lookups).admit!(attributes, requestContext()));
    expect(rejected?.status).toEqual({ status: 'Failure', code: 500, message: 'resource name may not be empty' });
    expect(lookups.calls).toEqual({ cached: ['/'], live: [] });
  });

  it('looks nothing up for a pod without a RuntimeClass', async () => {
    const lookups = recordingLookup([kata], { server: [kata] });
    const attributes = attributesOf({ metadata: { name: 'p' }, spec: { containers: [] } });
    await pluginWith(lookups).admit!(attributes, requestContext());
    await pluginWith(lookups).validate!(attributes, requestContext());
    expect(lookups.calls).toEqual({ cached: [], live: [] });
    expect(attributes.object).toEqual({ metadata: { name: 'p' }, spec: { containers: [] } });
  });
});

describe(`${pluginName} scope`, () => {
  const lookups = recordingLookup([newRuntimeClass('kata', { overhead: { podFixed: { cpu: '1' } } })], { server: [] });
  const plugin = pluginWith(lookups);
  const pod = (): Pod => ({ metadata: { name: 'p' }, spec: { runtimeClassName: 'kata' } });

  it('handles CREATE only', () => {
    expect(allOperations.filter((op) => plugin.handles(op))).toEqual([Operation.Create]);
  });

  it.each<{ name: string; overrides: Partial<Attributes> }>([
    { name: 'pods/status', overrides: { subresource: 'status' } },
    { name: 'pods/binding', overrides: { subresource: 'binding' } },
    { name: 'pods/ephemeralcontainers', overrides: { subresource: 'ephemeralcontainers' } },
    { name: 'deployments.apps', overrides: { resource: { group: 'apps', version: 'v1', resource: 'deployments' } } },
    { name: 'pods in another group', overrides: { resource: { group: 'example.com', version: 'v1', resource: 'pods' } } },
  ])('ignores $name in both phases', async ({ overrides }) => {
    const attributes = attributesOf(pod(), overrides);
    await plugin.admit!(attributes, requestContext());
    attributes.object = { metadata: { name: 'p' }, spec: { overhead: { cpu: '9' } } };
    await plugin.validate!(attributes, requestContext());
    expect(lookups.calls).toEqual({ cached: [], live: [] });
  });

  it.each([
    { name: 'no body', object: undefined },
    { name: 'an array', object: [] },
    { name: 'another kind', object: { kind: 'Deployment', metadata: { name: 'p' } } },
    { name: 'a spec that is not an object', object: { kind: 'Pod', spec: 'x' } },
    { name: 'a runtimeClassName that is not a string', object: { kind: 'Pod', spec: { runtimeClassName: 7 } } },
    { name: 'tolerations that are not a list', object: { kind: 'Pod', spec: { tolerations: {} } } },
  ])("answers upstream's BadRequest for a body that is not a pod: $name", async ({ object }) => {
    for (const phase of ['admit', 'validate'] as const) {
      const rejected = await rejectionOf(() => plugin[phase]!(attributesOf(object), requestContext()));
      expect(rejected?.status).toEqual({
        status: 'Failure',
        code: 400,
        reason: 'BadRequest',
        message: 'Resource was marked with kind Pod but was unable to be converted',
      });
    }
  });
});
