// The requester's identity, end to end on a real kube-apiserver: the webhook runs the cluster backend,
// so ORPE's question goes to kube-apiserver's SubjectAccessReview with the userInfo kube-apiserver put
// in the AdmissionReview. A service account authenticated by a TokenRequest token, and an impersonated
// user with an impersonated group, may set blockOwnerDeletion only through a binding to a group, so
// the answer shows the groups reached the SubjectAccessReview; the same user without the group is
// denied.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { defaultNamespace, defaultRelease } from '../deploy/helm.ts';
import { repoRoot } from '../deploy/tools.ts';
import { runKubectl } from '../kubectl/kubectl.ts';
import { blockOwnerDeletionDenied, deniedByValidatingWebhook } from '../kubectl/scenarios.ts';
import { describeWithControlPlane, type RealCluster } from './real-cluster.ts';
import { demoRealCluster } from './scenarios.ts';

describeWithControlPlane("the requester's identity reaches SubjectAccessReview whole (cluster backend)", () => {
  let cluster: RealCluster;
  let scratch: string;
  beforeAll(async () => {
    cluster = await demoRealCluster({}, { backend: 'cluster' });
    await cluster.kubectlOk('apply', '-f', 'test/control-plane/fixtures/deployer-rbac.yaml');
    scratch = await mkdtemp(join(tmpdir(), 'identity-'));
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  it("a service account token: kube-apiserver's userInfo is what the webhook sees, and its group allows the owner check", async () => {
    const token = (await cluster.kubectlOk('create', 'token', 'deployer', '-n', 'admission-chain-demo', '--duration=10m')).trim();
    const kubeconfig = join(scratch, 'deployer.kubeconfig');
    await writeFile(kubeconfig, cluster.controlPlane.kubeconfigWithToken(token), { mode: 0o600 });
    const before = cluster.webhookCalls.length;
    const result = await runKubectl(
      join(scratch, 'home'),
      kubeconfig,
      ['apply', '--dry-run=server', '-f', 'examples/configmap-owner-denied.yaml'],
      { cwd: repoRoot, kubectl: cluster.controlPlane.binaries.kubectl },
    );
    expect(result).toEqual({ code: 0, stdout: 'configmap/owned-config created (server dry run)\n', stderr: '' });
    const calls = cluster.webhookCalls.slice(before).filter((call) => call.webhook === 'validate.admission-chain.io');
    expect(calls).toHaveLength(1);
    const userInfo = calls[0]!.review.request!.userInfo;
    expect(userInfo).toMatchObject({
      username: 'system:serviceaccount:admission-chain-demo:deployer',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:admission-chain-demo', 'system:authenticated'],
    });
    expect(userInfo.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(userInfo.extra?.['authentication.kubernetes.io/credential-id']?.[0]).toMatch(/^JTI=/);
  });

  it('an impersonated user is allowed with the impersonated group and denied without it', async () => {
    const withGroup = await cluster.kubectl(
      'apply',
      '--dry-run=server',
      '--as=demo-user',
      '--as-group=system:serviceaccounts:admission-chain-demo',
      '-f',
      'examples/configmap-owner-denied.yaml',
    );
    expect(withGroup).toMatchObject({ code: 0, stdout: 'configmap/owned-config created (server dry run)\n' });

    const without = await cluster.kubectl('apply', '--dry-run=server', '--as=demo-user', '-f', 'examples/configmap-owner-denied.yaml');
    expect(without.code).toBe(1);
    expect(without.stderr).toContain(
      `Error from server (Forbidden): error when creating "examples/configmap-owner-denied.yaml": ${deniedByValidatingWebhook(blockOwnerDeletionDenied('configmaps', 'owned-config'))}\n`,
    );
  });

  it("without the chart's create on subjectaccessreviews, ORPE cannot ask and fails closed, saying why", async () => {
    const clusterRole = `${defaultRelease}-admission-chain`;
    const original = JSON.parse(await cluster.kubectlOk('get', 'clusterrole', clusterRole, '-o', 'json')) as {
      rules: Array<{ resources?: string[] }>;
    };
    const without = original.rules.filter((rule) => !(rule.resources ?? []).includes('subjectaccessreviews'));
    expect(without.length).toBe(original.rules.length - 1);
    await cluster.kubectlOk('patch', 'clusterrole', clusterRole, '--type=merge', '-p', JSON.stringify({ rules: without }));
    try {
      // Each new token is a new identity (its credential-id), so no cached answer stands in for the
      // question; kube-apiserver's RBAC informer takes the patch in a moment.
      const asDeployer = async () => {
        const token = (await cluster.kubectlOk('create', 'token', 'deployer', '-n', 'admission-chain-demo', '--duration=10m')).trim();
        const kubeconfig = join(scratch, 'deployer-again.kubeconfig');
        await writeFile(kubeconfig, cluster.controlPlane.kubeconfigWithToken(token), { mode: 0o600 });
        return runKubectl(join(scratch, 'home'), kubeconfig, ['apply', '--dry-run=server', '-f', 'examples/configmap-owner-denied.yaml'], {
          cwd: repoRoot,
          kubectl: cluster.controlPlane.binaries.kubectl,
        });
      };
      let result = await asDeployer();
      for (let attempt = 0; attempt < 50 && result.code === 0; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        result = await asDeployer();
      }
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /admission webhook "validate.admission-chain.io" denied the request: configmaps "owned-config" is forbidden: /,
      );
      // Upstream's message, with the authorizer's error where upstream prints it, naming the webhook's own identity.
      expect(result.stderr).toContain(
        `${blockOwnerDeletionDenied('configmaps', 'owned-config').replace(/<nil>$/, '')}subjectaccessreviews.authorization.k8s.io is forbidden: ` +
          `User "system:serviceaccount:${defaultNamespace}:${clusterRole}" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope\n`,
      );
      expect(result.stderr).toMatch(
        /^Warning: the authorizer could not answer whether user "system:serviceaccount:admission[^"]*" may update deployments\/finalizers/m,
      );
    } finally {
      await cluster.kubectlOk('patch', 'clusterrole', clusterRole, '--type=merge', '-p', JSON.stringify({ rules: original.rules }));
    }
  });
});
