// reinvocationPolicy: IfNeeded, the reason the chart sets it, refereed by a real kube-apiserver: a
// sidecar injector registered after our mutating webhook (its configuration's name sorts later, and
// kube-apiserver runs mutating webhooks in that order) adds a container with IfNotPresent;
// kube-apiserver then calls our webhook once more, which forces Always on the new container too. With
// Never, the sidecar reaches the validating phase unmutated and AlwaysPullImages' validation denies
// the pod — the two phases never interleave.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/types.ts';
import { deniedByValidatingWebhook } from '../kubectl/scenarios.ts';
import { startTestWebhook, type TestWebhook } from '../kubectl/test-webhook.ts';
import { describeWithControlPlane, type RealCluster } from './real-cluster.ts';
import { demoRealCluster } from './scenarios.ts';

const injectorName = 'inject.sidecar.example';

interface WithInjector {
  cluster: RealCluster;
  injector: TestWebhook;
}

/**
 * The demo cluster (its plugins enforcing) and a third-party sidecar injector registered
 * through the admissionregistration API. Its calls join the front's record of ours, in the order
 * kube-apiserver made them (it calls mutating webhooks one at a time).
 */
async function clusterWithSidecarInjector(values: Record<string, unknown>): Promise<WithInjector> {
  const cluster = await demoRealCluster(values);
  try {
    const injector = await startTestWebhook((request, path) => {
      cluster.webhookCalls.push({
        webhook: injectorName,
        path,
        review: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request },
        userAgent: '',
      });
      const containers = ((request.object as KubeObject).spec as { containers: Array<{ name: string }> }).containers;
      if (containers.some((c) => c.name === 'proxy')) return { allowed: true };
      return {
        allowed: true,
        patchOperations: [
          {
            op: 'add',
            path: '/spec/containers/-',
            value: { name: 'proxy', image: 'registry.example/proxy:1.0', imagePullPolicy: 'IfNotPresent' },
          },
        ],
      };
    });
    await cluster.apply({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'sidecar-injector' },
      webhooks: [
        {
          name: injectorName,
          admissionReviewVersions: ['v1'],
          clientConfig: injector.clientConfig('/inject'),
          rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['CREATE'] }],
          sideEffects: 'None',
          failurePolicy: 'Fail',
        },
      ],
    });
    await injectorCalled(cluster, injector);
    return { cluster, injector };
  } catch (error) {
    await cluster.close();
    throw error;
  }
}

/** kube-apiserver reads webhook configurations through an informer: wait until a pod write reaches the injector. */
async function injectorCalled(cluster: RealCluster, injector: TestWebhook, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (injector.requests.length === 0) {
    if (Date.now() > deadline) throw new Error(`the sidecar injector was not called within ${timeoutMs}ms`);
    await cluster.kubectl('apply', '--dry-run=server', '-f', 'examples/pod.yaml');
  }
}

describeWithControlPlane('a sidecar injector after our mutating webhook', () => {
  let ifNeeded: WithInjector;
  let never: WithInjector;
  beforeAll(async () => {
    [ifNeeded, never] = await Promise.all([
      clusterWithSidecarInjector({}),
      clusterWithSidecarInjector({ webhooks: { mutating: { reinvocationPolicy: 'Never' } } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([ifNeeded?.cluster.close(), never?.cluster.close()]);
    await Promise.all([ifNeeded?.injector.close(), never?.injector.close()]);
  });

  it('the configurations kube-apiserver holds: ours sorts first, with the reinvocation policy the chart set', async () => {
    for (const [{ cluster }, policy] of [
      [ifNeeded, 'IfNeeded'],
      [never, 'Never'],
    ] as const) {
      const mutating = (await cluster.configurations()).filter((c) => c.kind === 'MutatingWebhookConfiguration');
      expect(mutating.map((c) => [c.metadata.name, c.webhooks?.map((w) => [w.name, w.reinvocationPolicy])])).toEqual([
        ['ac-admission-chain', [['mutate.admission-chain.io', policy]]],
        // The API server's default for a webhook that does not say.
        ['sidecar-injector', [[injectorName, 'Never']]],
      ]);
    }
  });

  it('IfNeeded (chart default): our webhook is called again and the sidecar pulls Always too', async () => {
    const { cluster } = ifNeeded;
    const before = cluster.webhookCalls.length;
    const result = await cluster.kubectl(
      'apply',
      '--dry-run=server',
      '-f',
      'examples/pod.yaml',
      '-o',
      'jsonpath={.spec.containers[*].name}={.spec.containers[*].imagePullPolicy}',
    );
    expect(result).toEqual({ code: 0, stdout: 'web proxy=Always Always', stderr: '' });
    const calls = cluster.webhookCalls.slice(before);
    expect(calls.map((c) => c.webhook)).toEqual([
      'mutate.admission-chain.io',
      injectorName,
      'mutate.admission-chain.io',
      'validate.admission-chain.io',
    ]);
    // The reinvocation sees the injected container.
    const reinvoked = calls[2]!.review.request!.object as { spec: { containers: Array<{ name: string; imagePullPolicy: string }> } };
    expect(reinvoked.spec.containers).toMatchObject([
      { name: 'web', imagePullPolicy: 'Always' },
      { name: 'proxy', imagePullPolicy: 'IfNotPresent' },
    ]);
  });

  it('Never: the validating phase sees the unmutated sidecar and denies the pod', async () => {
    const { cluster } = never;
    const before = cluster.webhookCalls.length;
    const result = await cluster.kubectl('apply', '--dry-run=server', '-f', 'examples/pod.yaml');
    // AlwaysPullImages rejects with an aggregate of field errors, which upstream turns into a 500
    // Status without a reason; kube-apiserver passes the webhook's code on and kubectl prints no reason.
    expect(result).toEqual({
      code: 1,
      stdout: '',
      // The explanation names the field, and why our mutating webhook did not fix it: a later one changed it.
      stderr:
        'Warning: spec.containers[1].imagePullPolicy is "IfNotPresent", not "Always": every container needs imagePullPolicy: Always (and every image volume pullPolicy: Always)\n' +
        'Warning: the mutating webhook sets Always (AlwaysPullImages in /mutate): it did not see this pod, or a later webhook changed the policy back\n' +
        `Error from server: error when creating "examples/pod.yaml": ${deniedByValidatingWebhook('pods "web" is forbidden: spec.containers[1].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"')}\n`,
    });
    const calls = cluster.webhookCalls.slice(before);
    expect(calls.map((c) => c.webhook)).toEqual(['mutate.admission-chain.io', injectorName, 'validate.admission-chain.io']);
    expect(calls[2]?.answer?.response?.status).toMatchObject({ code: 500 });
  });
});
