// `admission-chain unregister` with a kubeconfig, as the chart's pre-delete hook runs it, against the
// stand-in API server: it deletes both configurations (with --owned-by-helm-release only those that
// release installed), is content when they are gone already, and
// fails with the API server's reason (exit 1, no stack trace) when it cannot. In-process through
// main(), but for one run of the real process.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startStandInApiServer, type ResourceType, type StandInApiServer } from '../apiserver/index.ts';
import { kubeconfigYaml } from '../apiserver/kubeconfig.ts';
import { runCli, runMain } from '../support/cli.ts';

const types: ResourceType[] = [
  { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', namespaced: false },
  { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', namespaced: false },
];

let api: StandInApiServer;
let scratch: string;
let kubeconfig: string;
beforeEach(async () => {
  api = await startStandInApiServer({ writableResources: types });
  scratch = await mkdtemp(join(tmpdir(), 'admission-chain-unregister-'));
  kubeconfig = join(scratch, 'kubeconfig');
  await writeFile(kubeconfig, api.kubeconfigYaml);
});
afterEach(async () => {
  await api.close();
  await rm(scratch, { recursive: true, force: true });
});

describe('admission-chain unregister', () => {
  it('deletes the validating, then the mutating configuration of that name, and leaves others alone', async () => {
    for (const type of types) for (const name of ['ac', 'other']) api.store.put(type, { metadata: { name } });
    // The real process, once for this command.
    const result = await runCli(['unregister', '--webhook-configuration=ac', `--kubeconfig=${kubeconfig}`]);
    expect(result).toEqual({ code: 0, stderr: '', stdout: 'ValidatingWebhookConfiguration ac: deleted\nMutatingWebhookConfiguration ac: deleted\n' });
    expect(types.map((t) => api.store.list(t).map((o) => o.metadata?.name))).toEqual([['other'], ['other']]);
    expect(api.calls.count('delete validatingwebhookconfigurations')).toBe(1);
  });

  it('with --owned-by-helm-release, deletes what that release installed and keeps what another tool applied', async () => {
    const helm = { 'meta.helm.sh/release-name': 'ac', 'meta.helm.sh/release-namespace': 'admission-chain' };
    // Installed by `helm install`: Helm's ownership annotations on both.
    for (const type of types) api.store.put(type, { metadata: { name: 'ac', annotations: helm } });
    const uninstall = await runMain(['unregister', '--webhook-configuration=ac', '--owned-by-helm-release=admission-chain/ac', `--kubeconfig=${kubeconfig}`]);
    expect(uninstall).toEqual({ code: 0, stderr: '', stdout: 'ValidatingWebhookConfiguration ac: deleted\nMutatingWebhookConfiguration ac: deleted\n' });
    expect(types.map((t) => api.store.list(t).length)).toEqual([0, 0]);

    // Applied by kubectl from `helm template` (no Helm annotations), or by another release: kept.
    api.store.put(types[0]!, { metadata: { name: 'ac', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } } });
    api.store.put(types[1]!, { metadata: { name: 'ac', annotations: { ...helm, 'meta.helm.sh/release-name': 'other' } } });
    const install = await runMain(['unregister', '--webhook-configuration=ac', '--owned-by-helm-release=admission-chain/ac', `--kubeconfig=${kubeconfig}`]);
    expect(install).toEqual({
      code: 0,
      stderr: '',
      stdout: 'ValidatingWebhookConfiguration ac: kept: not installed by Helm release admission-chain/ac\nMutatingWebhookConfiguration ac: kept: not installed by Helm release admission-chain/ac\n',
    });
    expect(types.map((t) => api.store.list(t).length)).toEqual([1, 1]);
    expect(api.calls.count('delete validatingwebhookconfigurations') + api.calls.count('delete mutatingwebhookconfigurations')).toBe(2);
  });

  it('succeeds when there is nothing to delete', async () => {
    const result = await runMain(['unregister', '--webhook-configuration=ac', `--kubeconfig=${kubeconfig}`]);
    expect(result).toEqual({ code: 0, stderr: '', stdout: 'ValidatingWebhookConfiguration ac: not found\nMutatingWebhookConfiguration ac: not found\n' });
  });

  it('fails with the API server’s reason when it may not delete', async () => {
    api.store.put(types[1]!, { metadata: { name: 'ac' } });
    api.inject('delete validatingwebhookconfigurations', { kind: 'status', code: 403, message: 'validatingwebhookconfigurations.admissionregistration.k8s.io "ac" is forbidden' });
    const result = await runMain(['unregister', '--webhook-configuration=ac', `--kubeconfig=${kubeconfig}`]);
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'admission-chain: validatingwebhookconfigurations.admissionregistration.k8s.io "ac" is forbidden\n' });
  });

  it('fails within its timeout when the API server does not answer', async () => {
    api.inject('delete validatingwebhookconfigurations', { kind: 'hang' });
    const result = await runMain(['unregister', '--webhook-configuration=ac', `--kubeconfig=${kubeconfig}`, '--timeout=300ms']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`admission-chain: DELETE "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/ac": context deadline exceeded\n`);
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
    await writeFile(broken, kubeconfigYaml({ server: 'https://127.0.0.1:1', caCert: api.caCert, token: 't' }));
    const result = await runMain(['unregister', '--webhook-configuration=ac', `--kubeconfig=${broken}`, '--timeout=2s']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^admission-chain: DELETE ".*validatingwebhookconfigurations\/ac": .*ECONNREFUSED.*\n$/);
  });
});
