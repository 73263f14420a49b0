// Upstream plugin/pkg/admission/podnodeselector/admission_test.go: TestPodAdmission (every row,
// admitted and then validated as upstream does) and TestHandles; then the exact denials, where the
// namespace comes from (cache, then one live read), malformed annotations, and what is ignored.
import { describe, expect, it } from 'vitest';
import { attributesRecord, requestContext } from '../../../test/support/attributes.ts';
import { namespace, recordingLookup } from '../../../test/support/lookups.ts';
import { rejectionOf } from '../../../test/support/rejections.ts';
import type { Attributes } from '../../admission/attributes.ts';
import { allOperations, Operation } from '../../admission/operation.ts';
import { createPlugin as createChecked } from '../../admission/plugin.ts';
import type { Pod } from '../../api/core.ts';
import { convertSelectorToLabelsMap } from '../../api/labels.ts';
import { newForbidden } from '../../api/status-error.ts';
import { silentLogger } from '../../ports/logger.ts';
import type { Namespace, ResourceLookup } from '../../ports/lookups.ts';
import type { PodNodeSelectorConfiguration } from './configuration.ts';
import { podNodeSelector as createPlugin, definition, pluginName } from './index.ts';
import { podAdmissionCases } from './testdata/upstream-cases.ts';

const annotation = 'scheduler.alpha.kubernetes.io/node-selector';
const context = requestContext();

/** Upstream's attributes record here: namespace and name "testNamespace". */
const attributesFor = (object: unknown, overrides: Partial<Attributes> = {}): Attributes =>
  attributesRecord(object, { namespace: 'testNamespace', name: 'testNamespace', ...overrides });

/** Upstream's handler.clusterNodeSelectors: the default under its key, whitelists by namespace. */
function configuration(defaultNodeSelector: string, whitelists: Record<string, string> = {}): PodNodeSelectorConfiguration {
  return {
    clusterDefaultNodeSelector: convertSelectorToLabelsMap(defaultNodeSelector),
    whitelists: new Map(Object.entries(whitelists).map(([ns, selector]) => [ns, convertSelectorToLabelsMap(selector)])),
  };
}

describe('TestPodAdmission', () => {
  it.each(podAdmissionCases)(
    '$testName',
    async ({ defaultNodeSelector, namespaceNodeSelector, whitelist, podNodeSelector, mergedNodeSelector, admit }) => {
      const ns =
        namespaceNodeSelector === undefined
          ? namespace('testNamespace')
          : namespace('testNamespace', { [annotation]: namespaceNodeSelector });
      const namespaces = namespaceNodeSelector === undefined ? recordingLookup([], { server: [ns] }) : recordingLookup([ns]);
      const plugin = createPlugin(namespaces, configuration(defaultNodeSelector, { testNamespace: whitelist }), silentLogger);
      const pod: Pod = {
        metadata: { name: 'testPod', namespace: 'testNamespace' },
        spec: { nodeSelector: structuredClone(podNodeSelector) as Record<string, string> },
      };
      const attributes = attributesFor(pod);

      const admitted = await rejectionOf(() => plugin.admit!(attributes, context));
      expect(admitted === undefined).toBe(admit);
      if (admit) expect((attributes.object as Pod).spec!.nodeSelector).toEqual(mergedNodeSelector);
      const validated = await rejectionOf(() => plugin.validate!(attributes, context));
      expect(validated === undefined).toBe(admit);
    },
  );

  it('also denies "Default node selector conflict with the whitelist" for an unannotated namespace', async () => {
    const plugin = createPlugin(
      recordingLookup([namespace('testNamespace')]),
      configuration('env=dev', { testNamespace: 'env=prd' }),
      silentLogger,
    );
    const error = await rejectionOf(() => plugin.admit!(attributesFor({ metadata: { name: 'testPod' }, spec: {} }), context));
    expect(error?.message).toBe('pods "testPod" is forbidden: pod node label selector labels conflict with its namespace whitelist');
  });
});

describe('TestHandles', () => {
  const plugin = createPlugin(recordingLookup([]), configuration(''), silentLogger);
  it.each(allOperations.map((op) => [op, op === Operation.Create] as const))('%s → %s', (op, expected) => {
    expect(plugin.handles(op)).toBe(expected);
  });
});

describe('denials, as kube-apiserver words them', () => {
  const plugin = (namespaces: ResourceLookup<Namespace>, config = configuration('')) => createPlugin(namespaces, config, silentLogger);

  it('a conflict with the namespace selector is a 403 naming the pod', async () => {
    const namespaces = recordingLookup([namespace('team-a', { [annotation]: 'pool=team-a' })]);
    const attributes = attributesFor(
      { metadata: { name: 'web-1' }, spec: { nodeSelector: { pool: 'gpu' } } },
      { namespace: 'team-a', name: 'web-1' },
    );
    const expected = newForbidden(
      { group: '', resource: 'pods' },
      'web-1',
      'pod node label selector conflicts with its namespace node label selector',
    );
    expect((await rejectionOf(() => plugin(namespaces).admit!(attributes, context)))?.status).toEqual(expected.status);
    expect((await rejectionOf(() => plugin(namespaces).validate!(attributes, context)))?.status).toEqual(expected.status);
  });

  it('names the pod by its own name, "" before generateName runs ("pods is forbidden")', async () => {
    const namespaces = recordingLookup([namespace('team-a', { [annotation]: 'pool=team-a' })]);
    const attributes = attributesFor(
      { metadata: { generateName: 'web-' }, spec: { nodeSelector: { pool: 'gpu' } } },
      { namespace: 'team-a', name: '' },
    );
    expect((await rejectionOf(() => plugin(namespaces).admit!(attributes, context)))?.message).toBe(
      'pods is forbidden: pod node label selector conflicts with its namespace node label selector',
    );
  });

  it("a namespace neither cached nor on the server: upstream's internal error", async () => {
    const namespaces = recordingLookup([], { server: [] });
    const error = await rejectionOf(() => plugin(namespaces).admit!(attributesFor({ spec: {} }, { namespace: 'gone' }), context));
    expect(error?.status).toEqual({
      status: 'Failure',
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: namespace gone does not exist',
      details: { causes: [{ message: 'namespace gone does not exist' }] },
    });
    expect(namespaces.calls).toEqual({ cached: ['/gone'], live: ['/gone'] });
  });

  it('any failure of the live read reads the same (upstream swallows it)', async () => {
    const denied = newForbidden(
      { group: '', resource: 'namespaces' },
      'team-a',
      'User "system:serviceaccount:x:y" cannot get resource "namespaces"',
    );
    const error = await rejectionOf(() =>
      plugin(recordingLookup([], { liveError: denied })).validate!(attributesFor({ spec: {} }, { namespace: 'team-a' }), context),
    );
    expect(error?.message).toBe('Internal error occurred: namespace team-a does not exist');
  });

  it('a request that runs out of time while reading says so', async () => {
    const controller = new AbortController();
    const hanging: ResourceLookup<Namespace> = {
      cached: () => undefined,
      live: (_ns, _name, signal) => new Promise((_resolve, reject) => signal!.addEventListener('abort', () => reject(signal!.reason))),
    };
    const pending = rejectionOf(() => plugin(hanging).admit!(attributesFor({ spec: {} }), requestContext(controller.signal)));
    controller.abort(new DOMException('deadline', 'TimeoutError'));
    expect((await pending)?.message).toBe(
      'Internal error occurred: admission request deadline exceeded while reading namespace testNamespace',
    );
  });

  it.each([
    ['env', 'invalid selector: [env]'],
    ['env=prod=1', 'invalid selector: [env prod 1]'],
    ['env=pro d', expect.stringMatching(/^\[env\]: Invalid value: "pro d": a valid label must be/)],
  ])('a malformed annotation "%s" fails the request with the parse error as a 500', async (value, message) => {
    const namespaces = recordingLookup([namespace('team-a', { [annotation]: value })]);
    const error = await rejectionOf(() => plugin(namespaces).admit!(attributesFor({ spec: {} }, { namespace: 'team-a' }), context));
    expect(error?.status).toEqual({ status: 'Failure', code: 500, message });
  });
});

describe('what the plugin reads and writes', () => {
  it('answers from the cache without a live read', async () => {
    const namespaces = recordingLookup([namespace('team-a', { [annotation]: 'pool=a' })], { server: [] });
    const pod: Pod = { spec: { containers: [] } };
    await createPlugin(namespaces, configuration(''), silentLogger).admit!(attributesFor(pod, { namespace: 'team-a' }), context);
    expect(pod.spec!.nodeSelector).toEqual({ pool: 'a' });
    expect(namespaces.calls.live).toEqual([]);
  });

  it('leaves the pod as it is when there is nothing to add (no empty nodeSelector appears)', async () => {
    const pod: Pod = { spec: { containers: [] } };
    await createPlugin(recordingLookup([namespace('testNamespace')]), configuration(''), silentLogger).admit!(attributesFor(pod), context);
    expect(pod).toEqual({ spec: { containers: [] } });
  });

  it.each([
    { name: 'pods/binding', overrides: { subresource: 'binding' } },
    { name: 'another resource', overrides: { resource: { group: '', version: 'v1', resource: 'configmaps' } } },
  ])('ignores $name without reading the namespace', async ({ overrides }) => {
    const namespaces = recordingLookup([]);
    const plugin = createPlugin(namespaces, configuration('a=b'), silentLogger);
    await plugin.admit!(attributesFor({ spec: {} }, overrides), context);
    await plugin.validate!(attributesFor({ spec: {} }, overrides), context);
    expect(namespaces.calls).toEqual({ cached: [], live: [] });
  });

  it.each([
    { name: 'a Service body', object: { kind: 'Service', spec: {} } },
    { name: 'a nodeSelector that is a list', object: { spec: { nodeSelector: ['a'] } } },
    { name: 'no body', object: undefined },
  ])('ignores $name, as upstream ignores what is not a Pod', async ({ object }) => {
    const namespaces = recordingLookup([namespace('testNamespace', { [annotation]: 'a=b' })]);
    const plugin = createPlugin(namespaces, configuration(''), silentLogger);
    expect(await rejectionOf(() => plugin.admit!(attributesFor(object), context))).toBeUndefined();
    expect(namespaces.calls.cached).toEqual([]);
  });

  it('the definition reads its configuration and the namespace lookup from its ports', () => {
    expect(definition.lookups).toEqual(['namespaces']);
    expect(() =>
      createChecked(
        definition,
        { logger: silentLogger, clock: { now: () => 0, sleep: async () => {} }, random: { intBelow: () => 0, alphanumeric: () => '' } },
        'test',
      ),
    ).toThrow(`admission plugin ${pluginName} needs a lookups, which the test backend does not provide`);
  });
});
