// The five off-by-default plugins through the real kubectl's `apply --dry-run=server` against a real
// kube-apiserver, with the chart installed from examples/values/tenant-pinning.yaml plus
// ExtendedResourceToleration, LimitPodHardAntiAffinityTopology and DenyServiceExternalIPs. The webhook
// runs the cluster backend against that API server, as in a pod: it reads the namespaces kubectl
// creates (their annotations) through its informer, and the plugins' configuration from the
// AdmissionConfiguration file the chart mounts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../deploy/tools.ts';
import { describeWithControlPlane, type RealCluster } from './real-cluster.ts';
import { demoRealCluster } from './scenarios.ts';

const tenantPinning = parse(readFileSync(join(repoRoot, 'examples/values/tenant-pinning.yaml'), 'utf8')) as {
  plugins: Record<string, unknown>;
  webhooks: unknown;
};
const enforcing = { enabled: true, mode: 'enforce' };
const values = {
  ...tenantPinning,
  plugins: {
    ...tenantPinning.plugins,
    ExtendedResourceToleration: enforcing,
    LimitPodHardAntiAffinityTopology: enforcing,
    DenyServiceExternalIPs: enforcing,
  },
};

// kube-apiserver's own warning on every write of a Service with externalIPs.
const externalIPsDeprecated = 'Warning: spec.externalIPs is deprecated and may no longer be implemented in some clusters\n';

// What kube-apiserver's DefaultTolerationSeconds (on by default) adds to every pod before any webhook.
const defaultTolerationSeconds = ['not-ready', 'unreachable']
  .map((condition) => `{"effect":"NoExecute","key":"node.kubernetes.io/${condition}","operator":"Exists","tolerationSeconds":300}`)
  .join(',');

const denied = (phase: 'mutate' | 'validate', message: string) =>
  `admission webhook "${phase}.admission-chain.io" denied the request: ${message}`;

describeWithControlPlane('kubectl apply --dry-run=server, tenant pinning and the other off-by-default plugins', () => {
  let cluster: RealCluster;
  beforeAll(async () => {
    cluster = await demoRealCluster(values, { backend: 'cluster', startWebhook: false });
    // A Service created before DenyServiceExternalIPs was turned on: the configurations hold no
    // webhooks until the webhook registers them, so this write is admitted without it.
    await cluster.kubectlOk('apply', '-f', 'test/control-plane/fixtures/service-external-ips-existing.yaml');
    await cluster.startWebhook();
    await cluster.registered();
    const namespace = await cluster.kubectl('apply', '-f', 'examples/tenant-pinning/namespace.yaml');
    expect(namespace).toEqual({ code: 0, stdout: 'namespace/team-a created\n', stderr: '' });
  });
  afterAll(() => cluster?.close());

  const callsDuring = async (run: () => Promise<unknown>) => {
    const before = cluster.webhookCalls.length;
    await run();
    return cluster.webhookCalls.slice(before);
  };

  it('the server runs the AdmissionConfiguration file the chart mounts, and no cluster-state file', () => {
    const args = (
      cluster.rendered.find((o) => o.kind === 'Deployment') as unknown as {
        spec: { template: { spec: { containers: { args: string[] }[] } } };
      }
    ).spec.template.spec.containers[0]!.args;
    expect(args).toContain('--admission-control-config-file=/etc/admission-chain/admission/admission-configuration.yaml');
    expect(args).toContain(
      '--plugins=LimitPodHardAntiAffinityTopology,AlwaysPullImages,PodNodeSelector,PodTolerationRestriction,ExtendedResourceToleration,OwnerReferencesPermissionEnforcement,DenyServiceExternalIPs',
    );
  });

  it('docs/deploy.md, "Pin tenants to node pools": every command prints what the page shows', async () => {
    const commands = documentedConsole(readFileSync(join(repoRoot, 'docs/deploy.md'), 'utf8'), '### Pin tenants to node pools');
    expect(commands.map((c) => c.args.at(-1))).toEqual([
      'jsonpath={.spec.nodeSelector}',
      'jsonpath={.spec.tolerations}',
      'examples/tenant-pinning/pod-other-pool.yaml',
      'examples/tenant-pinning/pod-unlisted-label.yaml',
      'examples/tenant-pinning/pod-gpu-toleration.yaml',
    ]);
    for (const { args, output } of commands) {
      const result = await cluster.kubectl(...args);
      expect(`${result.stdout}${result.stderr}`.trimEnd(), args.join(' ')).toBe(output);
    }
  });

  it('a pod in the tenant namespace gets its node selector and default toleration (and memory pressure: it is not BestEffort)', async () => {
    const created = await cluster.kubectl('apply', '--dry-run=server', '-f', 'examples/tenant-pinning/pod.yaml');
    expect(created).toEqual({ code: 0, stdout: 'pod/api created (server dry run)\n', stderr: '' });
    const nodeSelector = await cluster.kubectl(
      'apply',
      '--dry-run=server',
      '-f',
      'examples/tenant-pinning/pod.yaml',
      '-o',
      'jsonpath={.spec.nodeSelector}',
    );
    expect(nodeSelector).toEqual({ code: 0, stdout: '{"pool":"team-a"}', stderr: '' });
    const calls = await callsDuring(async () => {
      const tolerations = await cluster.kubectl(
        'apply',
        '--dry-run=server',
        '-f',
        'examples/tenant-pinning/pod.yaml',
        '-o',
        'jsonpath={.spec.tolerations}',
      );
      expect(tolerations).toEqual({
        code: 0,
        stdout: `[${defaultTolerationSeconds},{"effect":"NoSchedule","key":"pool","operator":"Equal","value":"team-a"},{"effect":"NoSchedule","key":"node.kubernetes.io/memory-pressure","operator":"Exists"}]`,
        stderr: '',
      });
    });
    // kube-apiserver's DefaultTolerationSeconds ran before the webhook: the whitelist has to allow them.
    expect(calls.map((c) => c.webhook)).toEqual(['mutate.admission-chain.io', 'validate.admission-chain.io']);
    expect((calls[0]!.review.request!.object as { spec: { tolerations: unknown } }).spec.tolerations).toEqual(
      JSON.parse(`[${defaultTolerationSeconds}]`),
    );
  });

  it('a pod asking for another pool is denied, with upstream’s message', async () => {
    const file = 'examples/tenant-pinning/pod-other-pool.yaml';
    const result = await cluster.kubectl('apply', '--dry-run=server', '-f', file);
    // kubectl prints the remedy first, then upstream's denial.
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `Warning: nodeSelector pool=general conflicts with namespace "team-a"'s node selector (pool=team-a): drop it from the pod; the namespace's labels are added\n` +
        `Error from server (Forbidden): error when creating "${file}": ${denied('mutate', 'pods "api-elsewhere" is forbidden: pod node label selector conflicts with its namespace node label selector')}\n`,
    });
  });

  it('a pod selecting a label outside the namespace’s whitelist in the chart values is denied', async () => {
    const file = 'examples/tenant-pinning/pod-unlisted-label.yaml';
    const result = await cluster.kubectl('apply', '--dry-run=server', '-f', file);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `Warning: nodeSelector disktype=ssd is outside namespace "team-a"'s PodNodeSelector whitelist: remove it, or have the whitelist allow it\n` +
        `Error from server (Forbidden): error when creating "${file}": ${denied('mutate', 'pods "api-ssd" is forbidden: pod node label selector labels conflict with its namespace whitelist')}\n`,
    });
  });

  it('a pod tolerating a taint outside the namespace’s whitelist is denied, with upstream’s message', async () => {
    const file = 'examples/tenant-pinning/pod-gpu-toleration.yaml';
    const result = await cluster.kubectl('apply', '--dry-run=server', '-f', file);
    // A plain error upstream (no Status): kube-apiserver answers 500 with no reason, and kubectl says so.
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `Warning: toleration {"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"} is not in namespace "team-a"'s tolerationsWhitelist: remove it from the pod, or have the whitelist cover it\n` +
        `Error from server: error when creating "${file}": ${denied('mutate', 'pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist')}\n`,
    });
  });

  it('a pod requesting an extended resource tolerates its taint', async () => {
    const result = await cluster.kubectl(
      'apply',
      '--dry-run=server',
      '-f',
      'test/kubectl/fixtures/pod-extended-resource.yaml',
      '-o',
      'jsonpath={.spec.tolerations}',
    );
    // Requests of extended resources alone leave the pod BestEffort: no memory-pressure toleration.
    expect(result).toEqual({
      code: 0,
      stdout: `[${defaultTolerationSeconds},{"effect":"NoSchedule","key":"example.com/gpu","operator":"Exists"}]`,
      stderr: '',
    });
  });

  it('required anti-affinity per zone is denied, per node allowed', async () => {
    const file = 'test/kubectl/fixtures/pod-zone-anti-affinity.yaml';
    const zone = await cluster.kubectl('apply', '--dry-run=server', '-f', file);
    expect(zone).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'Warning: required pod anti-affinity term 0 uses topologyKey "topology.kubernetes.io/zone"; only kubernetes.io/hostname is allowed: use it, or make the term preferred\n' +
        `Error from server (Forbidden): error when creating "${file}": ${denied('validate', 'pods "zone-hog" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.kubernetes.io/zone but only key kubernetes.io/hostname is allowed')}\n`,
    });
    const node = await cluster.kubectl('apply', '--dry-run=server', '-f', 'test/kubectl/fixtures/pod-hostname-anti-affinity.yaml');
    expect(node).toEqual({ code: 0, stdout: 'pod/spread created (server dry run)\n', stderr: '' });
  });

  it('a Service with externalIPs is denied; one without is allowed; only the validating webhook is called', async () => {
    const file = 'test/kubectl/fixtures/service-external-ips.yaml';
    const calls = await callsDuring(async () => {
      const external = await cluster.kubectl('apply', '--dry-run=server', '-f', file);
      expect(external).toEqual({
        code: 1,
        stdout: '',
        // kube-apiserver's deprecation warning comes from its own Service strategy, before validating admission.
        stderr:
          externalIPsDeprecated +
          'Warning: new external IP 203.0.113.10 is denied here (DenyServiceExternalIPs): remove it from spec.externalIPs; expose the Service with type LoadBalancer or NodePort\n' +
          `Error from server (Forbidden): error when creating "${file}": ${denied('validate', 'services "web-external" is forbidden: Use of external IPs is denied by admission control')}\n`,
      });
      const plain = await cluster.kubectl('apply', '--dry-run=server', '-f', 'test/kubectl/fixtures/service.yaml');
      expect(plain).toEqual({ code: 0, stdout: 'service/web created (server dry run)\n', stderr: '' });
    });
    expect(calls.map((c) => c.webhook)).toEqual(['validate.admission-chain.io', 'validate.admission-chain.io']);
  });

  it('a Service that already has externalIPs may keep them on update, but not add one', async () => {
    // web-legacy was created, with its external IP, before the webhook registered (beforeAll).
    const kept = await cluster.kubectl('label', '--dry-run=server', '-n', 'admission-chain-demo', 'service', 'web-legacy', 'tier=edge');
    expect(kept).toEqual({ code: 0, stdout: 'service/web-legacy labeled (server dry run)\n', stderr: externalIPsDeprecated });
    const added = await cluster.kubectl(
      'patch',
      '--dry-run=server',
      '-n',
      'admission-chain-demo',
      'service',
      'web-legacy',
      '--type=merge',
      '-p',
      '{"spec":{"externalIPs":["203.0.113.10","203.0.113.11"]}}',
    );
    // Only the IP being added is named: the one the Service had may stay.
    expect(added).toEqual({
      code: 1,
      stdout: '',
      stderr:
        externalIPsDeprecated +
        'Warning: new external IP 203.0.113.11 is denied here (DenyServiceExternalIPs): remove it from spec.externalIPs; expose the Service with type LoadBalancer or NodePort\n' +
        `Error from server (Forbidden): ${denied('validate', 'services "web-legacy" is forbidden: Use of external IPs is denied by admission control')}\n`,
    });
  });
});

/** The `$ kubectl …` lines of the console blocks in one section of a page, each with the output shown below it. */
function documentedConsole(page: string, heading: string): { args: string[]; output: string }[] {
  const start = page.indexOf(`\n${heading}\n`);
  const end = page.indexOf('\n#', start + heading.length + 2);
  const section = page.slice(start, end === -1 ? undefined : end);
  const commands: { args: string[]; output: string[] }[] = [];
  for (const block of section.matchAll(/```console\n([\s\S]*?)```/g)) {
    for (const line of (block[1] ?? '').trimEnd().split('\n')) {
      if (line.startsWith('$ kubectl ')) commands.push({ args: shellWords(line.slice('$ kubectl '.length)), output: [] });
      else commands.at(-1)?.output.push(line);
    }
  }
  return commands.map(({ args, output }) => ({ args, output: output.join('\n') }));
}

/** Words as the shell splits these lines: single quotes keep spaces and are removed. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/(?:'[^']*'|[^\s'])+/g)].map((m) => m[0].replaceAll("'", ''));
}
