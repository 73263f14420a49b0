// The stand-in API server, driven by the real @kubernetes/client-node: routes, Status errors,
// authentication, the object store's GET/LIST/WATCH, call counting, faults and clean shutdown.

import { ApiException, AuthorizationV1Api, CoreV1Api, KubeConfig, NodeV1Api, Watch } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { ruleTableAuthorizer, type StandInApiServer, startStandInApiServer, subjectAccessReviewRouteName } from './index.ts';
import type { ResourceType } from './object-store.ts';

const serviceAccounts: ResourceType = { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true };
const runtimeClasses: ResourceType = {
  group: 'node.k8s.io',
  version: 'v1',
  resource: 'runtimeclasses',
  kind: 'RuntimeClass',
  namespaced: false,
};

let api: StandInApiServer | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function apiException(promise: Promise<unknown>): Promise<ApiException<unknown>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiException) return error;
    throw error;
  }
  throw new Error('expected an ApiException');
}

/** client-node leaves non-JSON-typed error bodies as strings. */
function parsed(body: unknown): unknown {
  return typeof body === 'string' ? JSON.parse(body) : body;
}

describe('stand-in API server', () => {
  it('answers SubjectAccessReviews from the given authorizer and records the request body', async () => {
    const authorizer = ruleTableAuthorizer([
      { matches: (a) => a.resourceAttributes?.verb === 'get', result: { decision: 'allow', reason: 'get is fine' } },
      {
        matches: (a) => a.resourceAttributes?.verb === 'delete',
        result: { decision: 'deny', reason: 'never delete', error: 'role "x" not found' },
      },
    ]);
    api = await startStandInApiServer({ authorizer });
    const client = api.kubeConfig.makeApiClient(AuthorizationV1Api);
    const spec = { user: 'alice', groups: ['dev'], resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'ns' } };
    const allowed = await client.createSubjectAccessReview({ body: { spec } });
    expect(allowed.status).toEqual({ allowed: true, reason: 'get is fine' });
    const denied = await client.createSubjectAccessReview({ body: { spec: { ...spec, resourceAttributes: { verb: 'delete' } } } });
    expect(denied.status).toEqual({ allowed: false, denied: true, reason: 'never delete', evaluationError: 'role "x" not found' });
    const none = await client.createSubjectAccessReview({ body: { spec: { ...spec, resourceAttributes: { verb: 'list' } } } });
    expect(none.status).toEqual({ allowed: false });
    expect(api.calls.count(subjectAccessReviewRouteName)).toBe(3);
    expect(api.calls.bodies(subjectAccessReviewRouteName)[0]).toMatchObject({ spec });
    expect(authorizer.seen[0]?.user).toEqual({ username: 'alice', uid: '', groups: ['dev'], extra: {} });
  });

  it('rejects an invalid review with a 422 Invalid Status', async () => {
    api = await startStandInApiServer({ authorizer: ruleTableAuthorizer([]) });
    const client = api.kubeConfig.makeApiClient(AuthorizationV1Api);
    const error = await apiException(client.createSubjectAccessReview({ body: { spec: { user: 'alice' } } }));
    expect(error.code).toBe(422);
    expect(parsed(error.body)).toMatchObject({
      kind: 'Status',
      code: 422,
      reason: 'Invalid',
      message:
        'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    });
  });

  it('rejects a client without the kubeconfig token with 401', async () => {
    api = await startStandInApiServer({ authorizer: ruleTableAuthorizer([]) });
    const other = new KubeConfig();
    other.loadFromString(api.kubeconfigYaml.replace(api.token, 'wrong-token'));
    const error = await apiException(
      other
        .makeApiClient(AuthorizationV1Api)
        .createSubjectAccessReview({ body: { spec: { user: 'a', nonResourceAttributes: { path: '/x', verb: 'get' } } } }),
    );
    expect(error.code).toBe(401);
    expect(api.calls.count(subjectAccessReviewRouteName)).toBe(0);
  });

  it('serves GET and LIST from the object store and a NotFound Status for a missing object', async () => {
    api = await startStandInApiServer({ resources: [serviceAccounts, runtimeClasses] });
    api.store.put(serviceAccounts, { metadata: { name: 'default', namespace: 'team-a' }, automountServiceAccountToken: false });
    api.store.put(serviceAccounts, { metadata: { name: 'builder', namespace: 'team-b' } });
    api.store.put(runtimeClasses, { metadata: { name: 'gvisor' }, handler: 'runsc' });
    const core = api.kubeConfig.makeApiClient(CoreV1Api);

    const account = await core.readNamespacedServiceAccount({ name: 'default', namespace: 'team-a' });
    expect(account.automountServiceAccountToken).toBe(false);
    expect(account.metadata?.resourceVersion).toBe('1');
    const list = await core.listNamespacedServiceAccount({ namespace: 'team-b' });
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['builder']);
    expect(list.metadata?.resourceVersion).toBe('3');
    const all = await core.listServiceAccountForAllNamespaces();
    expect(all.items).toHaveLength(2);
    const runtimeClass = await api.kubeConfig.makeApiClient(NodeV1Api).readRuntimeClass({ name: 'gvisor' });
    expect(runtimeClass.handler).toBe('runsc');

    const missing = await apiException(core.readNamespacedServiceAccount({ name: 'nope', namespace: 'team-a' }));
    expect(missing.code).toBe(404);
    expect(parsed(missing.body)).toMatchObject({
      kind: 'Status',
      reason: 'NotFound',
      message: 'serviceaccounts "nope" not found',
      details: { name: 'nope', kind: 'serviceaccounts' },
    });
    expect(api.calls.count('get serviceaccounts')).toBe(2);
    expect(api.calls.count('list serviceaccounts')).toBe(2);
  });

  it('streams watch events as JSON lines, resuming after a resourceVersion', async () => {
    api = await startStandInApiServer({ resources: [serviceAccounts] });
    api.store.put(serviceAccounts, { metadata: { name: 'a', namespace: 'ns' } });
    const events: Array<{ type: string; name: string | undefined }> = [];
    let sawB!: () => void;
    const gotB = new Promise<void>((resolve) => (sawB = resolve));
    const controller = await new Watch(api.kubeConfig).watch(
      '/api/v1/namespaces/ns/serviceaccounts',
      { resourceVersion: '0' },
      (type, object: { metadata?: { name?: string } }) => {
        events.push({ type, name: object.metadata?.name });
        if (type === 'DELETED') sawB();
      },
      () => {},
    );
    api.store.put(serviceAccounts, { metadata: { name: 'b', namespace: 'ns' } });
    api.store.put(serviceAccounts, { metadata: { name: 'elsewhere', namespace: 'other' } });
    api.store.delete(serviceAccounts, 'ns', 'b');
    await gotB;
    controller.abort();
    expect(events).toEqual([
      { type: 'ADDED', name: 'a' },
      { type: 'ADDED', name: 'b' },
      { type: 'DELETED', name: 'b' },
    ]);
    expect(api.calls.count('watch serviceaccounts')).toBe(1);
  });

  describe('faults', () => {
    const review = { body: { spec: { user: 'u', nonResourceAttributes: { path: '/healthz', verb: 'get' } } } };

    it('answers 429 with Retry-After and a TooManyRequests Status, for the given number of calls', async () => {
      api = await startStandInApiServer({ authorizer: ruleTableAuthorizer([]) });
      api.inject(subjectAccessReviewRouteName, { kind: 'too-many-requests', retryAfterSeconds: 3 }, { times: 1 });
      const client = api.kubeConfig.makeApiClient(AuthorizationV1Api);
      const error = await apiException(client.createSubjectAccessReview(review));
      expect(error.code).toBe(429);
      expect(error.headers['retry-after']).toBe('3');
      expect(parsed(error.body)).toMatchObject({ reason: 'TooManyRequests', details: { retryAfterSeconds: 3 } });
      await expect(client.createSubjectAccessReview(review)).resolves.toMatchObject({ status: { allowed: false } });
      expect(api.calls.count(subjectAccessReviewRouteName)).toBe(2);
    });

    it('answers 500 InternalError until the fault is lifted', async () => {
      api = await startStandInApiServer({ authorizer: ruleTableAuthorizer([]) });
      const lift = api.inject(subjectAccessReviewRouteName, { kind: 'server-error', message: 'etcd is down' });
      const client = api.kubeConfig.makeApiClient(AuthorizationV1Api);
      for (let i = 0; i < 2; i++) {
        const error = await apiException(client.createSubjectAccessReview(review));
        expect(error.code).toBe(500);
        expect(parsed(error.body)).toMatchObject({ reason: 'InternalError', message: 'Internal error occurred: etcd is down' });
      }
      lift();
      await expect(client.createSubjectAccessReview(review)).resolves.toBeDefined();
    });

    it('drops the connection', async () => {
      api = await startStandInApiServer({ authorizer: ruleTableAuthorizer([]) });
      api.inject(subjectAccessReviewRouteName, { kind: 'drop-connection' }, { times: 1 });
      const client = api.kubeConfig.makeApiClient(AuthorizationV1Api);
      await expect(client.createSubjectAccessReview(review)).rejects.toThrow(/fetch failed|socket|closed/i);
      await expect(client.createSubjectAccessReview(review)).resolves.toBeDefined();
    });

    it('adds latency', async () => {
      api = await startStandInApiServer({ authorizer: ruleTableAuthorizer([]) });
      api.inject(subjectAccessReviewRouteName, { kind: 'latency', ms: 300 });
      const started = performance.now();
      await api.kubeConfig.makeApiClient(AuthorizationV1Api).createSubjectAccessReview(review);
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    });

    it('hangs until the server closes, and close() does not wait for the hung request', async () => {
      api = await startStandInApiServer({ authorizer: ruleTableAuthorizer([]) });
      api.inject(subjectAccessReviewRouteName, { kind: 'hang' });
      const pending = api.kubeConfig.makeApiClient(AuthorizationV1Api).createSubjectAccessReview(review);
      const outcome = pending.then(
        () => 'answered',
        () => 'failed',
      );
      const early = await Promise.race([outcome, new Promise((r) => setTimeout(() => r('still hanging'), 300))]);
      expect(early).toBe('still hanging');
      const started = performance.now();
      await api.close();
      expect(await outcome).toBe('failed');
      expect(performance.now() - started).toBeLessThan(1000);
    });
  });

  it('leaves no open server handles after close', async () => {
    api = await startStandInApiServer({ authorizer: ruleTableAuthorizer([]) });
    await api.kubeConfig
      .makeApiClient(AuthorizationV1Api)
      .createSubjectAccessReview({ body: { spec: { user: 'u', nonResourceAttributes: { path: '/', verb: 'get' } } } });
    const url = api.url;
    await api.close();
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
