// Per-plugin exemptions against a real kube-apiserver: the chart installed with an exemption of
// AlwaysPullImages for namespaces labelled team=platform, the webhook on the cluster backend as in its
// pod (the chart's ServiceAccount, ClusterRole and mounted PluginExemptions file). kubectl's
// `apply --dry-run=server` shows the pod kube-apiserver would store: left as written where the
// namespace's labels match, forced to Always elsewhere, and the webhook follows a label change.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { scratchFiles } from '../support/scratch-files.ts';
import { describeWithControlPlane, type RealCluster, startRealCluster } from './real-cluster.ts';

const { write } = scratchFiles('exemptions-control-plane');

const namespace = (name: string, team: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { team } } });

function podFile(namespaceName: string): string {
  return write(
    'pod.yaml',
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: namespaceName },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }] },
    }),
  );
}

describeWithControlPlane('per-plugin exemptions on a real kube-apiserver', () => {
  let cluster: RealCluster;
  beforeAll(async () => {
    cluster = await startRealCluster({
      values: {
        pluginMode: 'enforce',
        exemptions: { AlwaysPullImages: { namespaceSelectors: [{ matchLabels: { team: 'platform' } }] } },
      },
    });
    await cluster.apply(namespace('tools', 'platform'), namespace('apps', 'apps'));
  });
  afterAll(() => cluster?.close());

  const pullPolicy = async (namespaceName: string) => {
    const result = await cluster.kubectl(
      'apply',
      '--dry-run=server',
      '-f',
      podFile(namespaceName),
      '-o',
      'jsonpath={.spec.containers[*].imagePullPolicy}',
    );
    expect(result.stderr).toBe('');
    return result.stdout;
  };

  it('the chart passes the file and lets the webhook read namespaces', () => {
    const deployment = cluster.rendered.find((o) => o.kind === 'Deployment') as unknown as {
      spec: { template: { spec: { containers: { args: string[] }[] } } };
    };
    expect(deployment.spec.template.spec.containers[0]!.args).toContain(
      '--plugin-exemptions-file=/etc/admission-chain/exemptions/plugin-exemptions.yaml',
    );
  });

  it('a pod in a namespace the selector matches keeps its pull policy, with the rule in both answers; elsewhere it is forced to Always', async () => {
    await expect.poll(() => pullPolicy('tools'), { timeout: 10_000 }).toBe('IfNotPresent');
    const calls = cluster.webhookCalls.filter((c) => c.review.request?.namespace === 'tools');
    const annotations = calls.map((c) => [c.webhook, c.answer?.response?.auditAnnotations?.['AlwaysPullImages.exempted']]);
    expect(annotations.at(-2)).toEqual(['mutate.admission-chain.io', 'namespaceSelectors[0] "team=platform" (namespace "tools")']);
    expect(annotations.at(-1)).toEqual(['validate.admission-chain.io', 'namespaceSelectors[0] "team=platform" (namespace "tools")']);
    expect(await pullPolicy('apps')).toBe('Always');
  });

  it('follows the namespace: relabelled, the plugin acts again; a new namespace with the label is exempt', async () => {
    await cluster.kubectlOk('label', 'namespace', 'tools', 'team=apps', '--overwrite');
    await expect.poll(() => pullPolicy('tools'), { timeout: 10_000 }).toBe('Always');
    await cluster.apply(namespace('tools-2', 'platform'));
    await expect.poll(() => pullPolicy('tools-2'), { timeout: 10_000 }).toBe('IfNotPresent');
  });
});
