// reinvocationPolicy: IfNeeded, the reason the chart sets it: a sidecar injector that runs after our
// mutating webhook (its configuration sorts later) adds a container with IfNotPresent; kube-apiserver
// then calls our webhook once more, which forces Always on the new container too. With Never, the
// sidecar reaches the validating phase unmutated and AlwaysPullImages' validation denies the pod —
// the two phases never interleave.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/types.ts';
import type { PretendCluster } from './cluster.ts';
import { deniedByValidatingWebhook, demoCluster } from './scenarios.ts';
import { startTestWebhook, type TestWebhook } from './test-webhook.ts';

let sidecarInjector: TestWebhook;
beforeAll(async () => {
  sidecarInjector = await startTestWebhook((request) => {
    const containers = ((request.object as KubeObject).spec as { containers: Array<{ name: string }> }).containers;
    if (containers.some((c) => c.name === 'proxy')) return { allowed: true };
    return { allowed: true, patchOperations: [{ op: 'add', path: '/spec/containers/-', value: { name: 'proxy', image: 'registry.example/proxy:1.0', imagePullPolicy: 'IfNotPresent' } }] };
  });
});
afterAll(() => sidecarInjector?.close());

async function clusterWithSidecarInjector(values: Record<string, unknown>): Promise<PretendCluster> {
  const cluster = await demoCluster(values);
  cluster.surface.putWebhookConfiguration({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'sidecar-injector' },
    webhooks: [
      {
        name: 'inject.sidecar.example',
        admissionReviewVersions: ['v1'],
        clientConfig: sidecarInjector.clientConfig('/inject'),
        rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['CREATE'] }],
        sideEffects: 'None',
        failurePolicy: 'Fail',
      },
    ],
  });
  return cluster;
}

describe('a sidecar injector after our mutating webhook', () => {
  let ifNeeded: PretendCluster;
  let never: PretendCluster;
  beforeAll(async () => {
    [ifNeeded, never] = await Promise.all([clusterWithSidecarInjector({}), clusterWithSidecarInjector({ webhooks: { mutating: { reinvocationPolicy: 'Never' } } })]);
  });
  afterAll(async () => {
    await Promise.all([ifNeeded?.close(), never?.close()]);
  });

  it('IfNeeded (chart default): our webhook is called again and the sidecar pulls Always too', async () => {
    const before = ifNeeded.webhookCalls.length;
    const result = await ifNeeded.kubectl('apply', '--dry-run=server', '-f', 'examples/pod.yaml', '-o', 'jsonpath={.spec.containers[*].name}={.spec.containers[*].imagePullPolicy}');
    expect(result).toEqual({ code: 0, stdout: 'web proxy=Always Always', stderr: '' });
    const calls = ifNeeded.webhookCalls.slice(before);
    expect(calls.map((c) => c.webhook)).toEqual(['mutate.admission-chain.io', 'inject.sidecar.example', 'mutate.admission-chain.io', 'validate.admission-chain.io']);
    // The reinvocation sees the injected container.
    const reinvoked = calls[2]!.review.request!.object as { spec: { containers: Array<{ name: string; imagePullPolicy: string }> } };
    expect(reinvoked.spec.containers).toMatchObject([{ name: 'web', imagePullPolicy: 'Always' }, { name: 'proxy', imagePullPolicy: 'IfNotPresent' }]);
  });

  it('Never: the validating phase sees the unmutated sidecar and denies the pod', async () => {
    const before = never.webhookCalls.length;
    const result = await never.kubectl('apply', '--dry-run=server', '-f', 'examples/pod.yaml');
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
    const calls = never.webhookCalls.slice(before);
    expect(calls.map((c) => c.webhook)).toEqual(['mutate.admission-chain.io', 'inject.sidecar.example', 'validate.admission-chain.io']);
    expect(calls[2]?.response?.status).toMatchObject({ code: 500 });
  });
});
