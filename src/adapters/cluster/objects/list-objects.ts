// Every object of a resource across namespaces, read as LIST pages of a bounded size (limit and
// continue, as kubectl pages with --chunk-size) and handed on one at a time: the next page is asked
// for only when the caller has taken the last object of this one, so what is held stays one page
// whatever the cluster's size. Each page is its own call with its own deadline. Items are the JSON
// the API server stores, given the apiVersion and kind a LIST leaves off them.
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../../../api/types.ts';
import { withTimeout } from '../../../util/signals.ts';
import { getJson } from '../client/get-json.ts';
import { createKubeRequests, describeKubeError } from '../client/kube.ts';

export interface ListedResource {
  group: string;
  version: string;
  /** The plural name in the path: "pods", "deployments". */
  resource: string;
  kind: string;
}

export interface ObjectListerOptions {
  kubeConfig: KubeConfig;
  /** Objects per LIST page. */
  pageSize: number;
  /** Bound on each page's call. */
  timeoutMs: number;
}

export interface ObjectLister {
  /** The resource's objects in the API server's order; a failed page throws, naming the call. */
  list(resource: ListedResource, signal?: AbortSignal): AsyncGenerator<KubeObject>;
  close(): Promise<void>;
}

interface ListPage {
  items?: unknown[];
  metadata?: { continue?: string };
}

export function createObjectLister(options: ObjectListerOptions): ObjectLister {
  const { kubeConfig, pageSize, timeoutMs } = options;
  const requests = createKubeRequests(kubeConfig);
  const server = kubeConfig.getCurrentCluster()?.server ?? '';
  return {
    async *list(resource, signal) {
      const base = resourcePath(resource);
      const apiVersion = resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
      let next: string | undefined;
      do {
        const query = new URLSearchParams({ limit: String(pageSize), ...(next === undefined ? {} : { continue: next }) });
        const path = `${base}?${query}`;
        let page: ListPage;
        try {
          page = (await withTimeout(signal, timeoutMs, (bounded) => getJson(kubeConfig, requests, path, bounded))) as ListPage;
        } catch (error) {
          throw new Error(`cannot list ${resourceName(resource)}: ${describeKubeError(error, 'Get', `${server}${path}`)}`, {
            cause: error,
          });
        }
        for (const item of page.items ?? []) yield { ...(item as KubeObject), apiVersion, kind: resource.kind };
        next = page.metadata?.continue || undefined;
      } while (next !== undefined);
    },
    close: () => requests.close(),
  };
}

function resourcePath({ group, version, resource }: ListedResource): string {
  return group === '' ? `/api/${version}/${resource}` : `/apis/${group}/${version}/${resource}`;
}

/** kubectl's name for a resource: "pods", "deployments.apps". */
export function resourceName({ group, resource }: ListedResource): string {
  return group === '' ? resource : `${resource}.${group}`;
}
