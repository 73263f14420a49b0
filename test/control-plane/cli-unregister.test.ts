// `admission-chain unregister` with a kubeconfig, as the chart's pre-delete hook runs it, against a
// real kube-apiserver: it deletes both configurations (with --owned-by-helm-release only those that
// release installed), is content when they are gone already, and fails with the API server's reason
// (exit 1, no stack trace) when RBAC refuses it. In-process through main(), but for one run of the
// real process. How many DELETEs it sends, and a server that never answers, are on the stand-in
// (test/integration/cli-unregister.test.ts).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdmissionregistrationV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { type ControlPlane, startControlPlane } from '../../control-plane/control-plane.ts';
import { runCli, runMain } from '../support/cli.ts';
import { describeWithControlPlane } from './real-cluster.ts';

type Annotations = Record<string, string>;

describeWithControlPlane('admission-chain unregister against a real kube-apiserver', () => {
  let controlPlane: ControlPlane;
  let api: AdmissionregistrationV1Api;
  let scratch: string;
  let kubeconfig: string;

  beforeAll(async () => {
    controlPlane = await startControlPlane();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(controlPlane.kubeconfigYaml);
    api = kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    scratch = await mkdtemp(join(tmpdir(), 'admission-chain-unregister-'));
    kubeconfig = controlPlane.kubeconfigPath;
  }, 90_000);
  afterEach(async () => {
    for (const { metadata } of (await api.listValidatingWebhookConfiguration()).items)
      await api.deleteValidatingWebhookConfiguration({ name: metadata!.name! });
    for (const { metadata } of (await api.listMutatingWebhookConfiguration()).items)
      await api.deleteMutatingWebhookConfiguration({ name: metadata!.name! });
  });
  afterAll(async () => {
    await controlPlane?.stop();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  const createValidating = (name: string, annotations?: Annotations) =>
    api.createValidatingWebhookConfiguration({ body: { metadata: { name, annotations }, webhooks: [] } });
  const createMutating = (name: string, annotations?: Annotations) =>
    api.createMutatingWebhookConfiguration({ body: { metadata: { name, annotations }, webhooks: [] } });
  const names = async () => [
    (await api.listValidatingWebhookConfiguration()).items.map((o) => o.metadata?.name),
    (await api.listMutatingWebhookConfiguration()).items.map((o) => o.metadata?.name),
  ];

  it('deletes the validating, then the mutating configuration of that name, and leaves others alone', async () => {
    for (const name of ['ac', 'other']) {
      await createValidating(name);
      await createMutating(name);
    }
    // The real process, once for this command.
    const result = await runCli(['unregister', '--webhook-configuration=ac', `--kubeconfig=${kubeconfig}`]);
    expect(result).toEqual({
      code: 0,
      stderr: '',
      stdout: 'ValidatingWebhookConfiguration ac: deleted\nMutatingWebhookConfiguration ac: deleted\n',
    });
    expect(await names()).toEqual([['other'], ['other']]);
  });

  it('with --owned-by-helm-release, deletes what that release installed and keeps what another tool applied', async () => {
    const helm = { 'meta.helm.sh/release-name': 'ac', 'meta.helm.sh/release-namespace': 'admission-chain' };
    // Installed by `helm install`: Helm's ownership annotations on both.
    await createValidating('ac', helm);
    await createMutating('ac', helm);
    const uninstall = await runMain([
      'unregister',
      '--webhook-configuration=ac',
      '--owned-by-helm-release=admission-chain/ac',
      `--kubeconfig=${kubeconfig}`,
    ]);
    expect(uninstall).toEqual({
      code: 0,
      stderr: '',
      stdout: 'ValidatingWebhookConfiguration ac: deleted\nMutatingWebhookConfiguration ac: deleted\n',
    });
    expect(await names()).toEqual([[], []]);

    // Applied by kubectl from `helm template` (no Helm annotations), or by another release: kept, untouched.
    const kept = [
      await createValidating('ac', { 'kubectl.kubernetes.io/last-applied-configuration': '{}' }),
      await createMutating('ac', { ...helm, 'meta.helm.sh/release-name': 'other' }),
    ].map((o) => o.metadata?.resourceVersion);
    const install = await runMain([
      'unregister',
      '--webhook-configuration=ac',
      '--owned-by-helm-release=admission-chain/ac',
      `--kubeconfig=${kubeconfig}`,
    ]);
    expect(install).toEqual({
      code: 0,
      stderr: '',
      stdout:
        'ValidatingWebhookConfiguration ac: kept: not installed by Helm release admission-chain/ac\nMutatingWebhookConfiguration ac: kept: not installed by Helm release admission-chain/ac\n',
    });
    expect([
      (await api.readValidatingWebhookConfiguration({ name: 'ac' })).metadata?.resourceVersion,
      (await api.readMutatingWebhookConfiguration({ name: 'ac' })).metadata?.resourceVersion,
    ]).toEqual(kept);
  });

  it('succeeds when there is nothing to delete', async () => {
    const result = await runMain(['unregister', '--webhook-configuration=ac', `--kubeconfig=${kubeconfig}`]);
    expect(result).toEqual({
      code: 0,
      stderr: '',
      stdout: 'ValidatingWebhookConfiguration ac: not found\nMutatingWebhookConfiguration ac: not found\n',
    });
  });

  it('fails with the API server’s reason when it may not delete', async () => {
    await createMutating('ac');
    // An identity RBAC gives nothing: kube-apiserver's own refusal, whole.
    const forbidden = join(scratch, 'forbidden.kubeconfig');
    await writeFile(forbidden, await controlPlane.kubeconfigFor('hook-without-rights'), { mode: 0o600 });
    const result = await runMain(['unregister', '--webhook-configuration=ac', `--kubeconfig=${forbidden}`]);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'admission-chain: validatingwebhookconfigurations.admissionregistration.k8s.io "ac" is forbidden: User "hook-without-rights" cannot delete resource "validatingwebhookconfigurations" in API group "admissionregistration.k8s.io" at the cluster scope\n',
    });
    expect(await names()).toEqual([[], ['ac']]);
  });

  it.each([
    [['unregister'], 2, /required option '--webhook-configuration <name>' not specified/],
    [['unregister', '--webhook-configuration=ac', '--timeout=soon'], 2, /--timeout: invalid duration "soon"/],
    [['unregister', '--webhook-configuration=ac', '--owned-by-helm-release=ac'], 2, /--owned-by-helm-release: "ac" is not NAMESPACE\/NAME/],
  ])('refuses %j', async (args, code, message) => {
    const result = await runMain([...args, `--kubeconfig=${kubeconfig}`]);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });

  it('names a kubeconfig it cannot use', async () => {
    const broken = join(scratch, 'nowhere');
    await writeFile(broken, controlPlane.kubeconfigWithToken('t').replace(controlPlane.server, 'https://127.0.0.1:1'));
    const result = await runMain(['unregister', '--webhook-configuration=ac', `--kubeconfig=${broken}`, '--timeout=2s']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^admission-chain: DELETE ".*validatingwebhookconfigurations\/ac": .*ECONNREFUSED.*\n$/);
  });
});
