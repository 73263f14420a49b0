// The Namespace lookup of the cluster backend against a real kube-apiserver, through client-node:
// names, annotations and labels cached from the LIST and followed through the WATCH, nothing else held; live
// GETs (the namespace, undefined for NotFound, a StatusError with the server's code for a refusal);
// and PodNodeSelector and PodTolerationRestriction on top of a backend started with an identity that
// may read namespaces and nothing else. Which requests these make is counted on the stand-in, in
// test/integration/cluster-namespaces.test.ts.
import { CoreV1Api, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { type ControlPlane, startControlPlane } from '../../control-plane/control-plane.ts';
import { type ClusterLookups, createClusterLookups } from '../../src/adapters/cluster/lookups/lookups.ts';
import { createPlugin } from '../../src/admission/plugin.ts';
import type { Pod } from '../../src/api/core.ts';
import { isStatusError, StatusError } from '../../src/api/status-error.ts';
import { definition as podNodeSelector } from '../../src/plugins/podnodeselector/index.ts';
import { definition as podTolerationRestriction } from '../../src/plugins/podtolerationrestriction/index.ts';
import { systemClock, systemRandom } from '../../src/ports/clock.ts';
import { silentLogger } from '../../src/ports/logger.ts';
import type { Backend } from '../../src/wiring/backend.ts';
import { createClusterBackend } from '../../src/wiring/cluster.ts';
import { podAttributes, requestContext } from '../support/attributes.ts';
import { eventually } from '../support/eventually.ts';
import { describeWithControlPlane } from './real-cluster.ts';

const selectorAnnotation = 'scheduler.alpha.kubernetes.io/node-selector';

function kubeConfigOf(yaml: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(yaml);
  return kubeConfig;
}

/** A user whose ClusterRole grants these verbs on namespaces and nothing else. */
async function namespaceReader(controlPlane: ControlPlane, admin: KubeConfig, user: string, verbs: string[]): Promise<KubeConfig> {
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createClusterRole({ body: { metadata: { name: user }, rules: [{ apiGroups: [''], resources: ['namespaces'], verbs }] } });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: user },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: user },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    },
  });
  return kubeConfigOf(await controlPlane.kubeconfigFor(user));
}

describeWithControlPlane('namespace lookups on the cluster backend, against a real kube-apiserver', () => {
  let controlPlane: ControlPlane;
  let admin: KubeConfig;
  let core: CoreV1Api;
  let lookups: ClusterLookups | undefined;
  let backend: Backend | undefined;

  beforeAll(async () => {
    controlPlane = await startControlPlane();
    admin = kubeConfigOf(controlPlane.kubeconfigYaml);
    core = admin.makeApiClient(CoreV1Api);
  }, 90_000);
  afterEach(async () => {
    await lookups?.close();
    await backend?.close();
    lookups = backend = undefined;
  });
  afterAll(async () => {
    await controlPlane?.stop();
  });

  const startLookups = async (kubeConfig = admin) => {
    lookups = createClusterLookups({ kubeConfig, resources: ['namespaces'], backoff: { initialMs: 20, maxMs: 200 } });
    await lookups.ready();
    return lookups;
  };

  it('caches names, annotations and labels from the LIST (last-applied-configuration, finalizers, spec and status dropped)', async () => {
    await core.createNamespace({
      body: {
        metadata: {
          name: 'team-a',
          labels: { tier: 'gold' },
          annotations: { [selectorAnnotation]: 'pool=a', 'kubectl.kubernetes.io/last-applied-configuration': '{"big":"blob"}' },
        },
      },
    });
    const lookups = await startLookups();
    // kube-apiserver adds the kubernetes.io/metadata.name label, a finalizer and the Active phase;
    // the projection keeps the labels (exemptions select namespaces by them) and drops the rest.
    expect(lookups.namespaces!.cached('', 'team-a')).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'team-a',
        uid: expect.any(String),
        resourceVersion: expect.any(String),
        annotations: { [selectorAnnotation]: 'pool=a' },
        labels: { tier: 'gold', 'kubernetes.io/metadata.name': 'team-a' },
      },
    });
    expect(lookups.namespaces!.cached('', 'team-b')).toBeUndefined();
    expect(lookups.notReadyReasons()).toEqual([]);
  });

  it('follows annotation changes and new namespaces through the WATCH', async () => {
    await core.createNamespace({ body: { metadata: { name: 'team-watched' } } });
    const lookups = await startLookups();
    expect(lookups.namespaces!.cached('', 'team-watched')?.metadata?.annotations).toBeUndefined();
    await core.patchNamespace({
      name: 'team-watched',
      body: [{ op: 'add', path: '/metadata/annotations', value: { [selectorAnnotation]: 'pool=b' } }],
    });
    await core.createNamespace({ body: { metadata: { name: 'team-new' } } });
    await eventually(
      () => lookups.namespaces!.cached('', 'team-watched')?.metadata?.annotations?.[selectorAnnotation] === 'pool=b',
      'the annotation change',
    );
    await eventually(() => lookups.namespaces!.cached('', 'team-new'), 'the new namespace');
  });

  it("reads live: the namespace, or undefined for the server's NotFound", async () => {
    const lookups = await startLookups();
    await core.createNamespace({ body: { metadata: { name: 'fresh' } } });
    expect(await lookups.namespaces!.live('', 'fresh', AbortSignal.timeout(5_000))).toMatchObject({
      kind: 'Namespace',
      metadata: { name: 'fresh' },
    });
    expect(await lookups.namespaces!.live('', 'missing')).toBeUndefined();
  });

  it("a live read the server refuses is a StatusError with the server's code and message", async () => {
    // May list and watch (so the cache syncs) but not get: kube-apiserver's RBAC refuses the GET.
    const lookups = await startLookups(await namespaceReader(controlPlane, admin, 'namespace-lister', ['list', 'watch']));
    let failure: unknown;
    try {
      await lookups.namespaces!.live('', 'x');
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(StatusError);
    expect((failure as StatusError).code).toBe(403);
    // kube-apiserver's request info takes a namespace's own name as its namespace, so the refusal
    // says "in the namespace", not "at the cluster scope".
    expect((failure as StatusError).status.message).toBe(
      'namespaces "x" is forbidden: User "namespace-lister" cannot get resource "namespaces" in API group "" in the namespace "x"',
    );
  });

  it('PodNodeSelector and PodTolerationRestriction on a backend that may read namespaces and nothing else', async () => {
    await core.createNamespace({
      body: {
        metadata: {
          name: 'team-plugins',
          annotations: {
            [selectorAnnotation]: 'pool=a',
            'scheduler.alpha.kubernetes.io/defaultTolerations': '[{"key":"pool","operator":"Equal","value":"a","effect":"NoSchedule"}]',
            'scheduler.alpha.kubernetes.io/tolerationsWhitelist': '[{"key":"pool","operator":"Exists"}]',
          },
        },
      },
    });
    // With no right to anything but namespaces, a backend that started another cache, discovery or a
    // SubjectAccessReview would not become ready (the stand-in counts that nothing else is asked).
    const reader = await namespaceReader(controlPlane, admin, 'namespace-reader', ['get', 'list', 'watch']);
    const enabled = [podNodeSelector, podTolerationRestriction];
    backend = createClusterBackend(
      reader,
      {
        kind: 'cluster',
        requestTimeoutMs: 5_000,
        sarAllowedTtlMs: 0,
        sarDeniedTtlMs: 0,
        discoveryRefreshIntervalMs: 0,
        kubeconfig: undefined,
      },
      silentLogger,
      enabled,
    );
    await backend.ready();
    expect(backend.notReadyReasons()).toEqual([]);

    const ports = { ...backend.ports, clock: systemClock, random: systemRandom };
    const context = () => requestContext(AbortSignal.timeout(5_000));
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'team-plugins' },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    };
    for (const definition of enabled)
      await createPlugin(definition, ports, 'cluster').admit!(
        podAttributes({ namespace: 'team-plugins', name: 'web', object: pod }),
        context(),
      );
    expect(pod.spec).toMatchObject({
      nodeSelector: { pool: 'a' },
      tolerations: [{ key: 'pool', operator: 'Equal', value: 'a', effect: 'NoSchedule' }],
    });

    // A namespace created just now: found, from the cache or by a live GET.
    await core.createNamespace({ body: { metadata: { name: 'team-later', annotations: { [selectorAnnotation]: 'pool=b' } } } });
    const other: Pod = { metadata: { name: 'web', namespace: 'team-later' }, spec: {} };
    await createPlugin(podNodeSelector, ports, 'cluster').admit!(podAttributes({ namespace: 'team-later', object: other }), context());
    expect(other.spec!.nodeSelector).toEqual({ pool: 'b' });

    // One that does not exist at all: upstream's answers.
    const errors = [];
    for (const plugin of enabled) {
      try {
        await createPlugin(plugin, ports, 'cluster').admit!(
          podAttributes({ namespace: 'gone', object: { spec: { tolerations: [{ key: 'x', operator: 'Exists' }] } } }),
          context(),
        );
      } catch (error) {
        if (!isStatusError(error)) throw error;
        errors.push(error.status.message);
      }
    }
    expect(errors).toEqual(['Internal error occurred: namespace gone does not exist', 'namespaces "gone" not found']);
  });
});
