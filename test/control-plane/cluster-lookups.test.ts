// The in-cluster Lookups against a real kube-apiserver, through @kubernetes/client-node: cache hits
// without a live read, objects followed through the WATCH, live reads on a miss (found, NotFound,
// and the API server's own 403), Secrets held without their data, readiness naming the caches a
// missing permission keeps from syncing, and the ServiceAccount and RuntimeClass plugins on top.
// What a real API server cannot be made to do (answer 500, hang, drop a watch) stays with the
// stand-in, in test/integration/cluster-lookups.test.ts.
import { CoreV1Api, KubeConfig, NodeV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlane, startControlPlane } from '../../control-plane/control-plane.ts';
import { type ClusterLookups, type ClusterLookupsOptions, createClusterLookups } from '../../src/adapters/cluster/lookups/lookups.ts';
import type { Pod } from '../../src/api/core.ts';
import { isForbidden, type StatusError } from '../../src/api/status-error.ts';
import { instrumentLookups } from '../../src/observability/instrument-lookups.ts';
import { definition as runtimeClassPlugin } from '../../src/plugins/runtimeclass/index.ts';
import { definition as serviceAccountPlugin } from '../../src/plugins/serviceaccount/index.ts';
import { systemClock, systemRandom } from '../../src/ports/clock.ts';
import type { Lookups } from '../../src/ports/lookups.ts';
import type { LookupResource } from '../../src/ports/recorders.ts';
import { podAttributes, requestContext } from '../support/attributes.ts';
import { eventually } from '../support/eventually.ts';
import { recordingLogger } from '../support/log.ts';
import { LookupEventRecorder } from '../support/recorders.ts';
import { describeWithControlPlane } from './real-cluster.ts';

const resources: readonly LookupResource[] = ['serviceaccounts', 'secrets', 'runtimeclasses'];
const secretValue = 'c3VwZXItc2VjcmV0LXBhc3N3b3Jk';
const secretPlain = 'super-secret-password';

describeWithControlPlane('cluster lookups against a real kube-apiserver', () => {
  let controlPlane: ControlPlane;
  let admin: KubeConfig;
  let core: CoreV1Api;
  let node: NodeV1Api;
  const started: ClusterLookups[] = [];

  beforeAll(async () => {
    controlPlane = await startControlPlane();
    admin = new KubeConfig();
    admin.loadFromString(controlPlane.kubeconfigYaml);
    core = admin.makeApiClient(CoreV1Api);
    node = admin.makeApiClient(NodeV1Api);
    for (const name of ['team-a', 'team-b', 'secrets', 'plugins']) await core.createNamespace({ body: { metadata: { name } } });
  }, 90_000);
  afterEach(async () => {
    for (const lookups of started.splice(0)) await lookups.close();
  });
  afterAll(async () => {
    await controlPlane?.stop();
  });

  /** Lookups as the admin (or the user of the given kubeconfig), with their observations and log lines. */
  function startLookups(kubeConfig: KubeConfig = admin, options: Partial<ClusterLookupsOptions> = {}) {
    const recorder = new LookupEventRecorder();
    const logs: string[] = [];
    const lookups = createClusterLookups({
      kubeConfig,
      logger: recordingLogger(logs),
      backoff: { initialMs: 20, maxMs: 200 },
      recorder,
      resources,
      ...options,
    });
    started.push(lookups);
    return { lookups, read: instrumentLookups(lookups, recorder), recorder, logs };
  }

  async function kubeConfigFor(user: string): Promise<KubeConfig> {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(await controlPlane.kubeconfigFor(user));
    return kubeConfig;
  }

  describe('cache', () => {
    it('answers from the cache after the first LIST, with no live read', async () => {
      await core.createNamespacedServiceAccount({
        namespace: 'team-a',
        body: {
          metadata: { name: 'builder' },
          automountServiceAccountToken: false,
          imagePullSecrets: [{ name: 'registry' }],
          secrets: [{ name: 'token' }],
        },
      });
      await node.createRuntimeClass({
        body: {
          metadata: { name: 'gvisor' },
          handler: 'runsc',
          overhead: { podFixed: { cpu: '250m' } },
          scheduling: { nodeSelector: { sandbox: 'true' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
        },
      });
      const { lookups, read, recorder } = startLookups();
      await lookups.ready();
      expect(read.serviceAccounts.cached('team-a', 'builder')).toEqual({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'builder', namespace: 'team-a', uid: expect.any(String), resourceVersion: expect.any(String) },
        automountServiceAccountToken: false,
        imagePullSecrets: [{ name: 'registry' }],
        secrets: [{ name: 'token' }],
      });
      expect(read.runtimeClasses.cached('', 'gvisor')).toEqual({
        apiVersion: 'node.k8s.io/v1',
        kind: 'RuntimeClass',
        metadata: { name: 'gvisor', uid: expect.any(String), resourceVersion: expect.any(String) },
        handler: 'runsc',
        overhead: { podFixed: { cpu: '250m' } },
        scheduling: { nodeSelector: { sandbox: 'true' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
      });
      expect(read.serviceAccounts.cached('team-b', 'builder')).toBeUndefined();
      expect(recorder.events.filter((event) => !event.startsWith('list'))).toEqual([
        'cache serviceaccounts hit',
        'cache runtimeclasses hit',
        'cache serviceaccounts miss',
      ]);
      expect(recorder.count('list serviceaccounts')).toBe(1);
    });

    it('hands out copies: changing what was read does not change the cache', async () => {
      await core.createNamespacedServiceAccount({
        namespace: 'team-b',
        body: { metadata: { name: 'sa' }, imagePullSecrets: [{ name: 'a' }] },
      });
      const { lookups } = startLookups();
      await lookups.ready();
      lookups.serviceAccounts.cached('team-b', 'sa')!.imagePullSecrets!.push({ name: 'injected' });
      expect(lookups.serviceAccounts.cached('team-b', 'sa')?.imagePullSecrets).toEqual([{ name: 'a' }]);
    });

    it('follows objects created, modified and deleted after start through the WATCH, without relisting', async () => {
      const { lookups, recorder } = startLookups();
      await lookups.ready();
      await core.createNamespacedServiceAccount({
        namespace: 'team-b',
        body: { metadata: { name: 'late' }, automountServiceAccountToken: true },
      });
      await node.createRuntimeClass({ body: { metadata: { name: 'kata' }, handler: 'kata' } });
      await eventually(() => lookups.serviceAccounts.cached('team-b', 'late'), 'the new service account');
      await eventually(() => lookups.runtimeClasses.cached('', 'kata'), 'the new runtime class');
      await core.patchNamespacedServiceAccount({
        name: 'late',
        namespace: 'team-b',
        body: [{ op: 'replace', path: '/automountServiceAccountToken', value: false }],
      });
      await eventually(() => lookups.serviceAccounts.cached('team-b', 'late')?.automountServiceAccountToken === false, 'the modification');
      await core.deleteNamespacedServiceAccount({ name: 'late', namespace: 'team-b' });
      await eventually(() => lookups.serviceAccounts.cached('team-b', 'late') === undefined, 'the deletion');
      expect(recorder.count('list serviceaccounts')).toBe(1);
      expect(recorder.count('list runtimeclasses')).toBe(1);
      expect(recorder.events.filter((event) => event.startsWith('error') || event.startsWith('restart'))).toEqual([]);
    });
  });

  describe('live reads', () => {
    it('reads live on a cache miss: found, then NotFound as undefined', async () => {
      const { read, recorder } = startLookups();
      await core.createNamespacedServiceAccount({ namespace: 'team-a', body: { metadata: { name: 'fresh' } } });
      expect(await read.serviceAccounts.live('team-a', 'fresh', AbortSignal.timeout(5_000))).toMatchObject({
        kind: 'ServiceAccount',
        metadata: { name: 'fresh', namespace: 'team-a' },
      });
      expect(await read.serviceAccounts.live('team-a', 'missing')).toBeUndefined();
      expect(await read.runtimeClasses.live('', 'missing')).toBeUndefined();
      expect(recorder.events.filter((event) => event.startsWith('live'))).toEqual([
        'live serviceaccounts found',
        'live serviceaccounts not-found',
        'live runtimeclasses not-found',
      ]);
    });

    it("throws the API server's own Forbidden as a StatusError when the identity may not read", async () => {
      const { read, recorder } = startLookups(await kubeConfigFor('nobody'));
      const forbidden = await read.runtimeClasses.live('', 'x').then(
        () => expect.unreachable('the read was allowed'),
        (error: unknown) => error,
      );
      expect(isForbidden(forbidden)).toBe(true);
      expect((forbidden as StatusError).message).toBe(
        'runtimeclasses.node.k8s.io "x" is forbidden: User "nobody" cannot get resource "runtimeclasses" in API group "node.k8s.io" at the cluster scope',
      );
      expect(recorder.events.filter((event) => event.startsWith('live'))).toEqual(['live runtimeclasses error']);
    });
  });

  it('Secrets: holds name, metadata and type only, from LIST, WATCH and live GET alike, and never logs data', async () => {
    const secret = (name: string) => ({
      metadata: {
        name,
        annotations: {
          'kubernetes.io/service-account.name': 'builder',
          'kubectl.kubernetes.io/last-applied-configuration': `{"data":{"password":"${secretValue}"}}`,
        },
        labels: { app: 'x' },
      },
      type: 'Opaque',
      data: { password: secretValue },
      stringData: { plain: secretPlain },
    });
    const expected = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name,
        namespace: 'secrets',
        uid: expect.any(String),
        resourceVersion: expect.any(String),
        annotations: { 'kubernetes.io/service-account.name': 'builder' },
      },
      type: 'Opaque',
    });
    await core.createNamespacedSecret({ namespace: 'secrets', body: secret('listed') });
    const { lookups, logs } = startLookups();
    await lookups.ready();
    expect(lookups.secrets.cached('secrets', 'listed')).toEqual(expected('listed'));
    await core.createNamespacedSecret({ namespace: 'secrets', body: secret('watched') });
    expect(await eventually(() => lookups.secrets.cached('secrets', 'watched'), 'the watched secret')).toEqual(expected('watched'));
    expect(await lookups.secrets.live('secrets', 'listed')).toEqual(expected('listed'));
    const everything = JSON.stringify([lookups.secrets.cached('secrets', 'listed'), lookups.secrets.cached('secrets', 'watched'), logs]);
    expect(everything).not.toContain(secretValue);
    expect(everything).not.toContain(Buffer.from(secretPlain).toString('base64'));
    expect(everything).not.toContain(secretPlain);
  });

  describe('readiness', () => {
    const reader = 'lookup-reader';
    beforeAll(async () => {
      // May list and watch service accounts and runtime classes, not secrets (granted in the first test).
      const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
      await rbac.createClusterRole({
        body: {
          metadata: { name: reader },
          rules: [
            { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get', 'list', 'watch'] },
            { apiGroups: ['node.k8s.io'], resources: ['runtimeclasses'], verbs: ['get', 'list', 'watch'] },
          ],
        },
      });
      await rbac.createClusterRoleBinding({
        body: {
          metadata: { name: reader },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: reader },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: reader }],
        },
      });
    });

    it('rejects ready() when closed before the caches synced', async () => {
      const { lookups } = startLookups(await kubeConfigFor(reader));
      const ready = lookups.ready();
      ready.catch(() => {}); // observed below; keep the rejection from counting as unhandled meanwhile
      await eventually(() => lookups.notReadyReasons().length === 1, 'the two caches the reader may list');
      await lookups.close();
      await expect(ready).rejects.toThrow('secrets informer closed before its cache synced');
    });

    it('is ready only when every cache has listed once, and names the ones that have not', async () => {
      const { lookups, recorder } = startLookups(await kubeConfigFor(reader));
      expect(lookups.notReadyReasons()).toEqual([
        'serviceaccounts cache has not synced',
        'secrets cache has not synced',
        'runtimeclasses cache has not synced',
      ]);
      let ready = false;
      // Settled before the test ends: the grant below lets the secrets cache list.
      const becameReady = lookups.ready().then(() => (ready = true));
      await eventually(
        () => lookups.notReadyReasons().length === 1 && recorder.count('error secrets') > 0,
        'the two caches the reader may list',
      );
      // The reason carries RBAC's own refusal, so a pod's readiness tells what is missing.
      expect(lookups.notReadyReasons()).toEqual([
        'secrets cache has not synced (last error: HTTP 403: secrets is forbidden: User "lookup-reader" cannot list resource "secrets" in API group "" at the cluster scope)',
      ]);
      expect(ready).toBe(false);
      // Granted, the secrets cache lists on its next restart.
      const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
      await rbac.patchClusterRole({
        name: reader,
        body: [{ op: 'add', path: '/rules/-', value: { apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch'] } }],
      });
      await becameReady;
      expect(ready).toBe(true);
      expect(lookups.notReadyReasons()).toEqual([]);
    });
  });

  describe('under the plugins', () => {
    const context = () => requestContext(AbortSignal.timeout(10_000));
    const ports = (lookups: Lookups) => ({ lookups, logger: recordingLogger([]), clock: systemClock, random: systemRandom });
    const pod = (name: string, spec: Record<string, unknown>) =>
      podAttributes({
        namespace: 'plugins',
        name,
        object: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, namespace: 'plugins' },
          spec: { ...spec, containers: [{ name: 'c', image: 'nginx' }] },
        },
      });
    const rejection = (promise: Promise<unknown> | unknown) =>
      Promise.resolve(promise).then(
        () => expect.unreachable('the pod was admitted'),
        (error: unknown) => (error as StatusError).status,
      );

    it('ServiceAccount: admits a pod with the account from the cache, and rejects one naming a missing account after one live read', async () => {
      await core.createNamespacedServiceAccount({
        namespace: 'plugins',
        body: { metadata: { name: 'default' }, imagePullSecrets: [{ name: 'registry' }] },
      });
      const { lookups, read, recorder } = startLookups();
      await lookups.ready();
      const plugin = serviceAccountPlugin.create(ports(read));
      const attributes = pod('web', {});
      await plugin.admit!(attributes, context());
      await plugin.validate!(attributes, context());
      const admitted = attributes.object as Pod;
      expect(admitted.spec?.serviceAccountName).toBe('default');
      expect(admitted.spec?.imagePullSecrets).toEqual([{ name: 'registry' }]);
      const tokenVolume = admitted.spec?.volumes?.find((v) => v.name.startsWith('kube-api-access-'));
      expect(tokenVolume?.name).toMatch(/^kube-api-access-[a-z0-9]{5}$/);
      expect(admitted.spec?.containers?.[0]?.volumeMounts).toEqual([
        { name: tokenVolume?.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' },
      ]);
      expect(recorder.events.filter((event) => event.startsWith('live'))).toEqual([]);

      expect(await rejection(plugin.admit!(pod('job', { serviceAccountName: 'build-bot' }), context()))).toMatchObject({
        code: 403,
        reason: 'Forbidden',
        message: 'pods "job" is forbidden: error looking up service account plugins/build-bot: serviceaccount "build-bot" not found',
      });
      expect(recorder.events.filter((event) => event.startsWith('live'))).toEqual(['live serviceaccounts not-found']);
    });

    it('RuntimeClass: sets overhead and scheduling from the cached class, and rejects a class that exists nowhere', async () => {
      await node.createRuntimeClass({
        body: {
          metadata: { name: 'sandboxed' },
          handler: 'runsc',
          overhead: { podFixed: { cpu: '250m', memory: '64Mi' } },
          scheduling: { nodeSelector: { sandbox: 'true' } },
        },
      });
      const { lookups, read, recorder } = startLookups();
      await lookups.ready();
      const plugin = runtimeClassPlugin.create(ports(read));
      const attributes = pod('web', { runtimeClassName: 'sandboxed', nodeSelector: { zone: 'a' } });
      await plugin.admit!(attributes, context());
      await plugin.validate!(attributes, context());
      const admitted = attributes.object as Pod;
      expect(admitted.spec?.overhead).toEqual({ cpu: '250m', memory: '64Mi' });
      expect(admitted.spec?.nodeSelector).toEqual({ zone: 'a', sandbox: 'true' });
      expect(recorder.events.filter((event) => event.startsWith('live'))).toEqual([]);

      expect(await rejection(plugin.admit!(pod('web', { runtimeClassName: 'nope' }), context()))).toMatchObject({
        code: 403,
        message: 'pods "web" is forbidden: pod rejected: RuntimeClass "nope" not found',
      });
      expect(recorder.events.filter((event) => event.startsWith('live'))).toEqual(['live runtimeclasses not-found']);
    });
  });
});
