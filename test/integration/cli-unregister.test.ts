// What `admission-chain unregister` sends, counted on the stand-in API server, and how it ends when
// the API server never answers: one DELETE per configuration it owns, none for one it keeps, and a
// failure within --timeout. What it deletes, keeps and prints against a real kube-apiserver is in
// test/control-plane/cli-unregister.test.ts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ResourceType, type StandInApiServer, startStandInApiServer } from '../apiserver/index.ts';
import { runMain } from '../support/cli.ts';

const types: ResourceType[] = [
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'mutatingwebhookconfigurations',
    kind: 'MutatingWebhookConfiguration',
    namespaced: false,
  },
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'validatingwebhookconfigurations',
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
  },
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

describe('admission-chain unregister on the stand-in', () => {
  it('sends one DELETE per configuration of that name, and none for one another tool applied', async () => {
    for (const type of types) for (const name of ['ac', 'other']) api.store.put(type, { metadata: { name } });
    expect(await runMain(['unregister', '--webhook-configuration=ac', `--kubeconfig=${kubeconfig}`])).toMatchObject({ code: 0 });
    expect(api.calls.count('delete validatingwebhookconfigurations')).toBe(1);
    expect(api.calls.count('delete mutatingwebhookconfigurations')).toBe(1);

    api.store.put(types[0]!, { metadata: { name: 'ac', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } } });
    api.store.put(types[1]!, {
      metadata: { name: 'ac', annotations: { 'meta.helm.sh/release-name': 'other', 'meta.helm.sh/release-namespace': 'admission-chain' } },
    });
    expect(
      await runMain([
        'unregister',
        '--webhook-configuration=ac',
        '--owned-by-helm-release=admission-chain/ac',
        `--kubeconfig=${kubeconfig}`,
      ]),
    ).toMatchObject({ code: 0 });
    expect(api.calls.count('delete validatingwebhookconfigurations') + api.calls.count('delete mutatingwebhookconfigurations')).toBe(2);
  });

  it('fails within its timeout when the API server does not answer', async () => {
    api.inject('delete validatingwebhookconfigurations', { kind: 'hang' });
    const result = await runMain(['unregister', '--webhook-configuration=ac', `--kubeconfig=${kubeconfig}`, '--timeout=300ms']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `admission-chain: DELETE "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/ac": context deadline exceeded\n`,
    );
  });
});
