// The explanation's warnings reach kubectl whole even when other webhooks fill kube-apiserver's
// warning budget: past 4096 runes in all, kube-apiserver cuts every warning to 256 runes (and drops
// what still does not fit), so each explanation warning is kept within 256. A noisy third-party
// mutating webhook adds ten warnings of 1001 runes to a write our validating webhook then denies.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { blockOwnerDeletionDenied, deniedByValidatingWebhook, ownerDenialWarnings } from '../kubectl/scenarios.ts';
import { startTestWebhook, type TestWebhook } from '../kubectl/test-webhook.ts';
import { describeWithControlPlane, type RealCluster } from './real-cluster.ts';
import { demoRealCluster } from './scenarios.ts';

const noise = Array.from({ length: 10 }, (_, i) => `${i}${'x'.repeat(1000)}`);

describeWithControlPlane("warnings past kube-apiserver's budget", () => {
  let cluster: RealCluster;
  let noisy: TestWebhook;
  beforeAll(async () => {
    cluster = await demoRealCluster();
    noisy = await startTestWebhook(() => ({ allowed: true, warnings: noise }));
    await cluster.apply({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'noisy-neighbour' },
      webhooks: [
        {
          name: 'warn.noisy.example',
          admissionReviewVersions: ['v1'],
          clientConfig: noisy.clientConfig('/warn'),
          rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }],
          sideEffects: 'None',
          failurePolicy: 'Fail',
        },
      ],
    });
    // kube-apiserver reads webhook configurations through an informer: wait until a write reaches it.
    const deadline = Date.now() + 20_000;
    while (noisy.requests.length === 0) {
      if (Date.now() > deadline) throw new Error('the noisy webhook was not called');
      await cluster.kubectl('apply', '--dry-run=server', '-f', 'examples/configmap-owner-allowed.yaml');
    }
  });
  afterAll(async () => {
    await cluster?.close();
    await noisy?.close();
  });

  it("the other webhook's warnings are cut to 256 runes; the explanation and the denial arrive whole", async () => {
    const file = 'examples/configmap-owner-denied.yaml';
    const result = await cluster.kubectl('apply', '--dry-run=server', '--as=demo-user', '-f', file);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        noise.map((warning) => `Warning: ${warning.slice(0, 256)}\n`).join('') +
        ownerDenialWarnings +
        `Error from server (Forbidden): error when creating "${file}": ${deniedByValidatingWebhook(blockOwnerDeletionDenied('configmaps', 'owned-config'))}\n`,
    });
  });
});
