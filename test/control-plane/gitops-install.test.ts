// `helm template | kubectl apply`, with the real kubectl against a real kube-apiserver: every object
// the chart renders is applied as an ordinary object — the pre-delete hook's Job among them, which a
// cluster would run at once — and the webhook, started with the rendered Deployment's arguments and
// the Deployment's own ServiceAccount, registers itself all the same; `kubectl delete -f` of the same
// render then removes the configurations with the rest. No controller manager or kubelet runs: the
// Job's command is run as its container would run it, with the Job's ServiceAccount, and the replica
// as the chart starts it (self-managed TLS, local backend), its probe of the Service's name sent to
// it on loopback.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { startControlPlane } from '../../control-plane/control-plane.ts';
import { startChartWebhook } from '../deploy/chart-webhook.ts';
import { projectConfigMapMounts } from '../deploy/config-map-mounts.ts';
import { defaultNamespace, defaultRelease, isHook, type KubeObject, runHelm } from '../deploy/helm.ts';
import { repoRoot } from '../deploy/tools.ts';
import { runKubectl } from '../kubectl/kubectl.ts';
import type { WebhookConfiguration } from '../kubectl/webhook-configurations.ts';
import { runMain } from '../support/cli.ts';
import { describeWithControlPlane } from './real-cluster.ts';

interface PodSpec {
  serviceAccountName: string;
  containers: Array<{ command: string[]; args: string[] }>;
}
type WithPod = KubeObject & { spec: { template: { spec: PodSpec } } };

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

describeWithControlPlane('a GitOps install (helm template | kubectl apply)', () => {
  it('keeps its webhooks once the replicas are ready, and `kubectl delete -f` removes them', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'admission-chain-gitops-'));
    cleanups.push(() => rm(scratch, { recursive: true, force: true }));
    const rendered = runHelm('template');
    expect(rendered.status, rendered.stderr).toBe(0);
    const objects = parseAllDocuments(rendered.stdout)
      .map((d) => d.toJS() as KubeObject | null)
      .filter((o): o is KubeObject => o !== null);
    const render = join(scratch, 'render.yaml');
    await writeFile(render, rendered.stdout);

    const controlPlane = await startControlPlane({ dir: join(scratch, 'control-plane') });
    cleanups.push(() => controlPlane.stop());
    const kubectlAs =
      (kubeconfig: string) =>
      (...args: string[]) =>
        runKubectl(join(scratch, 'home'), kubeconfig, args, { cwd: repoRoot, kubectl: controlPlane.binaries.kubectl });
    const kubectl = kubectlAs(controlPlane.kubeconfigPath);
    const configurations = async () => {
      const lists = await Promise.all(
        ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'].map(
          async (resource) => JSON.parse((await kubectl('get', resource, '-o', 'json')).stdout) as { items: WebhookConfiguration[] },
        ),
      );
      return lists.flatMap((list) => list.items);
    };
    /** A kubeconfig with a TokenRequest token of one of the render's ServiceAccounts. */
    const serviceAccountKubeconfig = async (name: string) => {
      const token = await kubectl('create', 'token', name, '-n', defaultNamespace, '--duration=10m');
      expect(token.code, token.stderr).toBe(0);
      const file = join(scratch, `${name}.kubeconfig`);
      await writeFile(file, controlPlane.kubeconfigWithToken(token.stdout.trim()), { mode: 0o600 });
      return file;
    };

    // The namespace is the GitOps tool's (Argo CD's CreateNamespace); then everything, hooks included, as ordinary objects.
    expect((await kubectl('create', 'namespace', defaultNamespace)).code).toBe(0);
    const applied = await kubectl('apply', '-f', render);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('job.batch/ac-admission-chain-unregister created');
    expect((await configurations()).map((c) => [c.kind, c.webhooks ?? []])).toEqual([
      ['MutatingWebhookConfiguration', []],
      ['ValidatingWebhookConfiguration', []],
    ]);

    // The Job runs at once: kubectl's configurations carry no Helm ownership, so it keeps them.
    const job = objects.find((o) => isHook(o) && o.kind === 'Job') as WithPod;
    const [hook] = job.spec.template.spec.containers;
    const hookKubeconfig = await serviceAccountKubeconfig(job.spec.template.spec.serviceAccountName);
    const runJob = () => runMain([...hook!.command.slice(2), ...hook!.args, `--kubeconfig=${hookKubeconfig}`]);
    const kept =
      'ValidatingWebhookConfiguration ac-admission-chain: kept: not installed by Helm release admission-chain/ac\n' +
      'MutatingWebhookConfiguration ac-admission-chain: kept: not installed by Helm release admission-chain/ac\n';
    expect(await runJob()).toEqual({ code: 0, stderr: '', stdout: kept });
    expect(await configurations()).toHaveLength(2);

    // A replica as the Deployment starts it, as the Deployment's ServiceAccount: it issues its
    // certificate into the chart's Secret and registers both webhooks.
    const deployment = objects.find((o) => !isHook(o) && o.kind === 'Deployment') as WithPod;
    const service = `${defaultRelease}-admission-chain.${defaultNamespace}.svc`;
    let port = 0;
    const webhook = await startChartWebhook(
      objects,
      {
        certFile: join(scratch, 'tls.crt'),
        keyFile: join(scratch, 'tls.key'),
        clusterStateFile: join(repoRoot, 'examples/cluster-state.yaml'),
        kubeconfig: await serviceAccountKubeconfig(deployment.spec.template.spec.serviceAccountName),
        mounts: await projectConfigMapMounts(objects, join(scratch, 'pod')),
      },
      (host, p) => (host === service && p === 443 ? { host: '127.0.0.1', port } : { host, port: p }),
    );
    port = webhook.port;
    cleanups.push(() => webhook.shutdown());
    const deadline = Date.now() + 20_000;
    while (!(await configurations()).every((c) => (c.webhooks ?? []).length > 0)) {
      if (Date.now() > deadline) throw new Error('webhooks not registered');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await configurations()).map((c) => c.webhooks?.map((w) => [w.name, w.failurePolicy]))).toEqual([
      [['mutate.admission-chain.io', 'Ignore']],
      // The chart's defaults: the plugins warn, so the validating webhook fails open.
      [['validate.admission-chain.io', 'Ignore']],
    ]);
    // A retried Job pod (or the Job applied again) changes nothing.
    expect(await runJob()).toEqual({ code: 0, stderr: '', stdout: kept });
    expect((await configurations()).every((c) => (c.webhooks ?? []).length === 1)).toBe(true);

    // The same render deleted: the configurations go with everything else.
    const deleted = await kubectl('delete', '-f', render, '--wait=false');
    expect(deleted.stderr).toBe('');
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toContain('validatingwebhookconfiguration.admissionregistration.k8s.io "ac-admission-chain" deleted');
    expect(await configurations()).toEqual([]);
    const left = await kubectl('get', '-f', render, '-o', 'name', '--ignore-not-found');
    expect(left).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});
