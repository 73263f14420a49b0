// `helm template | kubectl apply`, with the real kubectl against the stand-in API server: every object
// the chart renders is applied as an ordinary object — the pre-delete hook's Job among them, which a
// cluster would run at once — and the webhook, started with the rendered Deployment's arguments,
// registers itself all the same; `kubectl delete -f` of the same render then removes the
// configurations with the rest. The stand-in runs no Job and no pod: the Job's command is run as its
// container would run it, and the replica as the chart starts it (self-managed TLS, local backend).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Command } from 'commander';
import { afterEach, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runServer } from '../../src/cli/serve.ts';
import { addServeOptions, parseServeConfig, type RawServeOptions } from '../../src/config/serve-config.ts';
import { defaultEnabledPlugins, orderedPlugins } from '../../src/plugins/index.ts';
import { startStandInApiServer, type ResourceType, type Route } from '../apiserver/index.ts';
import { defaultNamespace, defaultRelease, isHook, runHelm, type KubeObject } from '../deploy/helm.ts';
import { repoRoot } from '../deploy/tools.ts';
import { runMain } from '../support/cli.ts';
import { runKubectl } from './kubectl.ts';

interface Container {
  command: string[];
  args: string[];
}
type WithPod = KubeObject & { spec: { template: { spec: { containers: Container[] } } } };
type Configuration = KubeObject & { webhooks?: Array<{ name: string; failurePolicy?: string }> };

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

it('a rendered and applied install keeps its webhooks once the replicas are ready, and `kubectl delete -f` removes them', async () => {
  const scratch = await mkdtemp(join(tmpdir(), 'admission-chain-gitops-'));
  cleanups.push(() => rm(scratch, { recursive: true, force: true }));
  const rendered = runHelm('template');
  expect(rendered.status, rendered.stderr).toBe(0);
  const objects = parseAllDocuments(rendered.stdout).map((d) => d.toJS() as KubeObject | null).filter((o): o is KubeObject => o !== null);
  const render = join(scratch, 'render.yaml');
  await writeFile(render, rendered.stdout);

  const types = typesOf(objects);
  const api = await startStandInApiServer({ writableResources: types, routes: discoveryRoutes(types) });
  cleanups.push(() => api.close());
  const kubeconfig = join(scratch, 'kubeconfig');
  await writeFile(kubeconfig, api.kubeconfigYaml, { mode: 0o600 });
  const kubectl = (...args: string[]) => runKubectl(join(scratch, 'home'), kubeconfig, args, { cwd: repoRoot });
  const type = (kind: string) => types.find((t) => t.kind === kind)!;
  const configurations = () =>
    ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'].flatMap((kind) => api.store.list(type(kind)) as unknown as Configuration[]);

  // Everything, hooks included, as ordinary objects.
  const applied = await kubectl('apply', '-f', render);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  expect(applied.stdout).toContain('job.batch/ac-admission-chain-unregister created');
  expect(configurations().map((c) => [c.kind, c.webhooks ?? []])).toEqual([
    ['MutatingWebhookConfiguration', []],
    ['ValidatingWebhookConfiguration', []],
  ]);

  // The Job runs at once: kubectl's configurations carry no Helm ownership, so it keeps them.
  const job = objects.find((o) => isHook(o) && o.kind === 'Job') as WithPod;
  const [hook] = job.spec.template.spec.containers;
  const runJob = () => runMain([...hook!.command.slice(2), ...hook!.args, `--kubeconfig=${kubeconfig}`]);
  const kept = 'ValidatingWebhookConfiguration ac-admission-chain: kept: not installed by Helm release admission-chain/ac\n' +
    'MutatingWebhookConfiguration ac-admission-chain: kept: not installed by Helm release admission-chain/ac\n';
  expect(await runJob()).toEqual({ code: 0, stderr: '', stdout: kept });
  expect(configurations()).toHaveLength(2);

  // A replica as the Deployment starts it: it issues its certificate and registers both webhooks.
  const webhook = await startReplica(objects.find((o) => !isHook(o) && o.kind === 'Deployment') as WithPod, scratch, kubeconfig);
  cleanups.push(() => webhook.shutdown());
  const deadline = Date.now() + 15_000;
  while (!configurations().every((c) => (c.webhooks ?? []).length > 0)) {
    if (Date.now() > deadline) throw new Error('webhooks not registered');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(configurations().map((c) => c.webhooks?.map((w) => [w.name, w.failurePolicy]))).toEqual([
    [['mutate.admission-chain.io', 'Ignore']],
    // The chart's defaults: the plugins warn, so the validating webhook fails open.
    [['validate.admission-chain.io', 'Ignore']],
  ]);
  // A retried Job pod (or the Job applied again) changes nothing.
  expect(await runJob()).toEqual({ code: 0, stderr: '', stdout: kept });
  expect(configurations().every((c) => (c.webhooks ?? []).length === 1)).toBe(true);

  // The same render deleted: the configurations go with everything else.
  const deleted = await kubectl('delete', '-f', render, '--wait=false');
  expect(deleted.stderr).toBe('');
  expect(deleted.code).toBe(0);
  expect(deleted.stdout).toContain('validatingwebhookconfiguration.admissionregistration.k8s.io "ac-admission-chain" deleted');
  expect(configurations()).toEqual([]);
  expect(types.flatMap((t) => api.store.list(t))).toEqual([]);
});

/** The resource types of the rendered kinds (the stand-in serves them for reads and writes). */
function typesOf(objects: KubeObject[]): ResourceType[] {
  const known: Record<string, Omit<ResourceType, 'kind'>> = {
    ServiceAccount: { group: '', version: 'v1', resource: 'serviceaccounts', namespaced: true },
    Secret: { group: '', version: 'v1', resource: 'secrets', namespaced: true },
    Service: { group: '', version: 'v1', resource: 'services', namespaced: true },
    ResourceQuota: { group: '', version: 'v1', resource: 'resourcequotas', namespaced: true },
    PodDisruptionBudget: { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', namespaced: true },
    Deployment: { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true },
    Job: { group: 'batch', version: 'v1', resource: 'jobs', namespaced: true },
    ClusterRole: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', namespaced: false },
    ClusterRoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', namespaced: false },
    Role: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', namespaced: true },
    RoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', namespaced: true },
    MutatingWebhookConfiguration: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations', namespaced: false },
    ValidatingWebhookConfiguration: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations', namespaced: false },
  };
  return [...new Set(objects.map((o) => o.kind))].map((kind) => {
    const type = known[kind];
    if (type === undefined) throw new Error(`the chart renders a ${kind}, which this test does not serve`);
    return { ...type, kind };
  });
}

/** Legacy discovery and OpenAPI for those types: what kubectl maps kinds to resources with, and validates by. */
function discoveryRoutes(types: ResourceType[]): Route[] {
  const apiVersion = (t: ResourceType) => (t.group === '' ? t.version : `${t.group}/${t.version}`);
  const groups = [...new Set(types.filter((t) => t.group !== '').map((t) => t.group))];
  const routes: Route[] = [
    { name: 'discovery /version', method: 'GET', pattern: '/version', handle: (_r, respond) => respond.json(200, { major: '1', minor: '34', gitVersion: 'v1.34.0-stand-in' }) },
    { name: 'discovery /api', method: 'GET', pattern: '/api', handle: (_r, respond) => respond.json(200, { kind: 'APIVersions', versions: ['v1'] }) },
    {
      name: 'discovery /apis',
      method: 'GET',
      pattern: '/apis',
      handle: (_r, respond) =>
        respond.json(200, {
          kind: 'APIGroupList',
          apiVersion: 'v1',
          groups: groups.map((name) => {
            const version = types.find((t) => t.group === name)!.version;
            return { name, versions: [{ groupVersion: `${name}/${version}`, version }], preferredVersion: { groupVersion: `${name}/${version}`, version } };
          }),
        }),
    },
  ];
  // Just enough OpenAPI v3 for kubectl's default --validate=strict to leave field validation to the
  // server (as test/kubectl/openapi-routes.ts explains): each item path's PATCH with fieldValidation.
  const documentPath = (groupVersion: string) => (groupVersion.includes('/') ? `apis/${groupVersion}` : `api/${groupVersion}`);
  const groupVersions = [...new Set(types.map(apiVersion))];
  routes.push({
    name: 'openapi v3 index',
    method: 'GET',
    pattern: '/openapi/v3',
    handle: (_r, respond) => respond.json(200, { paths: Object.fromEntries(groupVersions.map((gv) => [documentPath(gv), { serverRelativeURL: `/openapi/v3/${documentPath(gv)}?hash=stand-in` }])) }),
  });
  for (const groupVersion of groupVersions) {
    const paths = Object.fromEntries(
      types
        .filter((t) => apiVersion(t) === groupVersion)
        .map((t) => [
          `/${documentPath(groupVersion)}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.resource}/{name}`,
          {
            patch: {
              operationId: `patch${t.kind}`,
              'x-kubernetes-action': 'patch',
              'x-kubernetes-group-version-kind': { group: t.group, version: t.version, kind: t.kind },
              parameters: [{ name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } }],
              responses: { '200': { description: 'OK' } },
            },
          },
        ]),
    );
    const document = { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.34.0' }, paths, components: { schemas: {} } };
    routes.push({ name: `openapi v3 ${groupVersion}`, method: 'GET', pattern: `/openapi/v3/${documentPath(groupVersion)}`, handle: (_r, respond) => respond.json(200, document) });
  }
  for (const groupVersion of groupVersions) {
    const resources = types
      .filter((t) => apiVersion(t) === groupVersion)
      .map((t) => ({ name: t.resource, singularName: t.kind.toLowerCase(), namespaced: t.namespaced, kind: t.kind, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] }));
    routes.push({
      name: `discovery ${groupVersion}`,
      method: 'GET',
      pattern: groupVersion.includes('/') ? `/apis/${groupVersion}` : `/api/${groupVersion}`,
      handle: (_r, respond) => respond.json(200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources }),
    });
  }
  return routes;
}

/** `serve` with the Deployment's arguments, then local ones; the probe through the Service reaches it. */
async function startReplica(deployment: WithPod, scratch: string, kubeconfig: string) {
  const args = [
    ...(deployment.spec.template.spec.containers[0]?.args ?? []),
    '--bind-address=127.0.0.1', '--port=0', '--metrics-port=0',
    `--tls-cert-file=${join(scratch, 'tls.crt')}`, `--tls-private-key-file=${join(scratch, 'tls.key')}`,
    `--cluster-state=${join(repoRoot, 'examples/cluster-state.yaml')}`, `--kubeconfig=${kubeconfig}`,
    '--reconcile-interval=200ms', '--shutdown-delay=0s', '--drain-timeout=2s',
  ];
  const serve = addServeOptions(new Command('serve')).exitOverride().allowExcessArguments(false);
  serve.parse(args, { from: 'user' });
  const config = parseServeConfig(serve.opts<RawServeOptions>(), orderedPlugins, defaultEnabledPlugins);
  const service = `${defaultRelease}-admission-chain.${defaultNamespace}.svc`;
  let port = 0;
  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
  const server = await runServer(config, { stdout: quiet }, { redirect: (host, p) => (host === service && p === 443 ? { host: '127.0.0.1', port } : { host, port: p }) });
  port = server.port;
  return server;
}
