// `audit --apply-reports`: the reports of one audit written to the cluster it audited, so report
// readers (Policy Reporter, kubectl get) show the latest run. Each report is a server-side apply
// under one field manager, forced (the reports are ours alone); then every report of ours that this
// run did not write — a namespace with nothing left to report — is deleted, so a fix shows up as a
// report gone, not one that stays as it was. Ours: the report name and the managed-by label.
import { ApiException, HttpMethod, type KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../../../api/types.ts';
import { withTimeout } from '../../../util/signals.ts';
import { getJson, sendJson } from '../client/get-json.ts';
import { createKubeRequests, describeKubeError, type KubeRequests, retryHint } from '../client/kube.ts';

export const reportFieldManager = 'admission-chain';
const managedBy = 'app.kubernetes.io/managed-by';

/** The report kinds of one API, as the reports name them, with the resources they are served as. */
export interface ReportResources {
  group: string;
  version: string;
  namespaced: { kind: string; resource: string };
  cluster: { kind: string; resource: string };
}

export interface ReportWriterOptions {
  kubeConfig: KubeConfig;
  resources: ReportResources;
  /** The name every report of ours carries. */
  name: string;
  /** The value of app.kubernetes.io/managed-by on every report of ours. */
  manager: string;
  /** Bound on each call. */
  timeoutMs: number;
}

/** What one write did, for the command's output: `Report team-a/admission-chain applied`. */
export interface ReportChange {
  kind: string;
  namespace?: string;
  name: string;
  change: 'applied' | 'deleted';
}

/** Applies the reports, then deletes ours this run did not write; a failed call throws, naming the report and the server's reason. */
export async function writeReports(options: ReportWriterOptions, reports: readonly KubeObject[]): Promise<ReportChange[]> {
  const requests = createKubeRequests(options.kubeConfig);
  try {
    const changes: ReportChange[] = [];
    const written = new Set<string>();
    for (const report of reports) {
      const namespace = report.metadata?.namespace;
      const name = report.metadata?.name ?? options.name;
      const kind = namespace === undefined ? options.resources.cluster.kind : options.resources.namespaced.kind;
      await call(options, requests, 'PATCH', objectPath(options.resources, namespace, name), report, kind);
      written.add(namespace ?? '');
      changes.push({ kind, ...(namespace === undefined ? {} : { namespace }), name, change: 'applied' });
    }
    for (const stale of await staleReports(options, requests, written)) {
      await call(options, requests, 'DELETE', objectPath(options.resources, stale.namespace, options.name), undefined, stale.kind);
      changes.push({ ...stale, name: options.name, change: 'deleted' });
    }
    return changes;
  } finally {
    await requests.close();
  }
}

/** Our reports, of both kinds, in namespaces (or the cluster, "") this run wrote none for. */
async function staleReports(
  options: ReportWriterOptions,
  requests: KubeRequests,
  written: ReadonlySet<string>,
): Promise<Array<{ kind: string; namespace?: string }>> {
  const { resources } = options;
  const stale: Array<{ kind: string; namespace?: string }> = [];
  for (const scope of [resources.namespaced, resources.cluster]) {
    const query = new URLSearchParams({ labelSelector: `${managedBy}=${options.manager}`, fieldSelector: `metadata.name=${options.name}` });
    const path = `${groupVersionPath(resources)}/${scope.resource}?${query}`;
    const list = (await call(options, requests, 'GET', path, undefined, scope.kind)) as { items?: KubeObject[] };
    for (const item of list.items ?? []) {
      const namespace = item.metadata?.namespace;
      if (!written.has(namespace ?? '')) stale.push({ kind: scope.kind, ...(namespace === undefined ? {} : { namespace }) });
    }
  }
  return stale;
}

async function call(
  options: ReportWriterOptions,
  requests: KubeRequests,
  method: 'GET' | 'PATCH' | 'DELETE',
  path: string,
  body: unknown,
  kind: string,
): Promise<unknown> {
  const server = options.kubeConfig.getCurrentCluster()?.server ?? '';
  const once = () =>
    withTimeout(undefined, options.timeoutMs, (signal) =>
      method === 'GET'
        ? getJson(options.kubeConfig, requests, path, signal)
        : send(options.kubeConfig, requests, method, path, body, signal),
    );
  try {
    return await withRetries(once);
  } catch (error) {
    // A report deleted meanwhile is as good as deleted by us.
    if (error instanceof ApiException && error.code === 404 && method === 'DELETE') return undefined;
    const verb = method === 'GET' ? 'list' : method === 'PATCH' ? 'apply' : 'delete';
    const what = `${verb} ${options.resources.group}/${options.resources.version} ${kind}`;
    if (error instanceof ApiException && error.code === 404 && method !== 'DELETE') {
      throw new Error(
        `cannot ${what}: the cluster does not serve it; install that report API's CustomResourceDefinitions, or choose another with --report-api`,
        { cause: error },
      );
    }
    const methodName = method === 'GET' ? 'Get' : method === 'PATCH' ? 'Patch' : 'Delete';
    throw new Error(`cannot ${what}: ${describeKubeError(error, methodName, `${server}${path}`)}`, { cause: error });
  }
}

/**
 * A call tried up to three times while the API server says it is worth retrying (a CRD's storage
 * still initializing answers 429 with Retry-After, as does an overloaded server): each call here is
 * idempotent (an apply, a delete, a list).
 */
async function withRetries<T>(once: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once();
    } catch (error) {
      const hint = retryHint(error);
      if (!hint.retry || attempt === 3) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(hint.afterMs, 200), 5000)));
    }
  }
}

/** A PATCH (server-side apply, forced, under our field manager) or DELETE of path, through the shared transport. */
async function send(
  kubeConfig: KubeConfig,
  requests: KubeRequests,
  method: 'PATCH' | 'DELETE',
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<unknown> {
  if (method === 'DELETE') return sendJson(kubeConfig, requests, { method: HttpMethod.DELETE, path }, signal);
  const query = new URLSearchParams({ fieldManager: reportFieldManager, force: 'true' });
  // JSON is YAML: an apply patch may be sent as JSON text.
  const applied = { contentType: 'application/apply-patch+yaml', text: JSON.stringify(body) };
  return sendJson(kubeConfig, requests, { method: HttpMethod.PATCH, path: `${path}?${query}`, body: applied }, signal);
}

function groupVersionPath({ group, version }: ReportResources): string {
  return `/apis/${group}/${version}`;
}

function objectPath(resources: ReportResources, namespace: string | undefined, name: string): string {
  const base = groupVersionPath(resources);
  return namespace === undefined
    ? `${base}/${resources.cluster.resource}/${encodeURIComponent(name)}`
    : `${base}/namespaces/${encodeURIComponent(namespace)}/${resources.namespaced.resource}/${encodeURIComponent(name)}`;
}
