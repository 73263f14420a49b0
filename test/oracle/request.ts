// Sends one oracle request to one API server: a create (POST) or an update (merge PATCH) with
// dryRun=All, as an impersonated user, authenticated as the control plane's admin through
// @kubernetes/client-node's kubeconfig handling. The answer is kept as kube-apiserver sent it: the
// HTTP code and the object or the Status. A bind is the one write done for real: a dry-run Binding
// is answered with a bare Status, so what it did to the pod shows only on the stored pod.
import { Agent, type RequestOptions, request } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import type { ControlPlane } from '../../control-plane/control-plane.ts';

export interface Identity {
  name: string;
  groups: readonly string[];
}

/** How an update changes the existing object. */
export type Change =
  | { patch: 'strategic' | 'merge'; body: object }
  /** Tolerations added after the ones the pod has on that server (a pod's tolerations may only grow). */
  | { appendTolerations: object[] };

/** Where each resource the oracle writes lives: its API path prefix and whether it is namespaced. */
const resources = {
  pods: { api: '/api/v1', namespaced: true },
  services: { api: '/api/v1', namespaced: true },
  configmaps: { api: '/api/v1', namespaced: true },
  persistentvolumeclaims: { api: '/api/v1', namespaced: true },
  persistentvolumes: { api: '/api/v1', namespaced: false },
  volumeattributesclasses: { api: '/apis/storage.k8s.io/v1', namespaced: false },
} as const;
export type OracleResource = keyof typeof resources;

/** The collection's path: `/api/v1/namespaces/ns/pods`, `/api/v1/persistentvolumes`. */
export function collectionPath(resource: OracleResource, namespace: string): string {
  const { api, namespaced } = resources[resource];
  return namespaced ? `${api}/namespaces/${encodeURIComponent(namespace)}/${resource}` : `${api}/${resource}`;
}

export interface OracleRequest {
  operation: 'create' | 'update' | 'bind';
  resource: OracleResource;
  /** The object's namespace; '' for a cluster-scoped resource. */
  namespace: string;
  /** create: the object; bind: the Binding (its metadata.name is the pod's). */
  object?: object;
  /** bind: the unscheduled pod, stored first by the admin, then bound by `as` with `object`. */
  pod?: object;
  /** update: the object changed, and how. */
  name?: string;
  /** update: a subresource written instead of the object itself. */
  subresource?: 'ephemeralcontainers';
  change?: Change;
  /** undefined: the admin (system:masters) itself. */
  as?: Identity;
}

export interface Answer {
  code: number;
  body: Record<string, unknown>;
}

export class ApiEndpoint {
  readonly name: string;
  readonly server: string;
  private readonly options: Promise<RequestOptions>;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 8 });

  constructor(name: string, plane: ControlPlane) {
    this.name = name;
    this.server = plane.server;
    const config = new KubeConfig();
    config.loadFromString(plane.kubeconfigYaml);
    this.options = (async () => {
      const options: RequestOptions = {};
      await config.applyToHTTPSOptions(options);
      return options;
    })();
  }

  async send(oracleRequest: OracleRequest): Promise<Answer> {
    if (oracleRequest.operation === 'bind') return this.bind(oracleRequest);
    const base = collectionPath(oracleRequest.resource, oracleRequest.namespace);
    const object = `${base}/${encodeURIComponent(oracleRequest.name ?? '')}`;
    const path =
      oracleRequest.operation === 'create'
        ? base
        : oracleRequest.subresource === undefined
          ? object
          : `${object}/${oracleRequest.subresource}`;
    const [contentType, body] = await this.bodyOf(oracleRequest, path);
    const method = oracleRequest.operation === 'create' ? 'POST' : 'PATCH';
    return this.call(method, `${path}?dryRun=All`, headersFor(contentType, oracleRequest.as), JSON.stringify(body));
  }

  /**
   * Stores the pod, binds it as the request's identity, and answers with the stored pod (or the
   * first refusal). The pod's name is the Binding's, unique per case: nothing is deleted afterwards.
   */
  private async bind(oracleRequest: OracleRequest): Promise<Answer> {
    const pods = collectionPath('pods', oracleRequest.namespace);
    const created = await this.call('POST', pods, headersFor('application/json', undefined), JSON.stringify(oracleRequest.pod ?? {}));
    if (created.code !== 201) throw new Error(`storing the pod to bind on ${this.name}: ${created.code} ${JSON.stringify(created.body)}`);
    const name = encodeURIComponent((created.body.metadata as { name: string }).name);
    const bound = await this.call(
      'POST',
      `${pods}/${name}/binding`,
      headersFor('application/json', oracleRequest.as),
      JSON.stringify(oracleRequest.object ?? {}),
    );
    if (bound.code < 200 || bound.code >= 300) return bound;
    const stored = await this.get(`${pods}/${name}`);
    if (stored.code !== 200) throw new Error(`GET the bound pod on ${this.name}: ${stored.code} ${JSON.stringify(stored.body)}`);
    return { code: bound.code, body: stored.body };
  }

  private async bodyOf(oracleRequest: OracleRequest, path: string): Promise<[string, object]> {
    if (oracleRequest.operation === 'create') return ['application/json', oracleRequest.object ?? {}];
    const change = oracleRequest.change;
    if (change === undefined) throw new Error('an update without a change');
    if ('patch' in change)
      return [change.patch === 'merge' ? 'application/merge-patch+json' : 'application/strategic-merge-patch+json', change.body];
    const existing = await this.get(path);
    if (existing.code !== 200) throw new Error(`GET ${path} on ${this.name}: ${existing.code} ${JSON.stringify(existing.body)}`);
    const tolerations = ((existing.body.spec as { tolerations?: object[] } | undefined)?.tolerations ?? []).concat(
      change.appendTolerations,
    );
    return ['application/merge-patch+json', { spec: { tolerations } }];
  }

  /** A plain GET as admin (the stored world, for checks). */
  async get(path: string): Promise<Answer> {
    return this.call('GET', path, { Accept: 'application/json' }, undefined);
  }

  close(): void {
    this.agent.destroy();
  }

  private async call(method: string, path: string, headers: Record<string, string | string[]>, body: string | undefined): Promise<Answer> {
    const options = await this.options;
    const url = new URL(path, this.server);
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        { ...options, method, agent: this.agent, headers: { ...(options.headers ?? {}), ...headers }, timeout: 30_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: Record<string, unknown>;
            try {
              parsed = JSON.parse(text) as Record<string, unknown>;
            } catch {
              parsed = { unparsed: text };
            }
            resolve({ code: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.once('timeout', () => req.destroy(new Error(`${method} ${url} timed out`)));
      req.once('error', reject);
      req.end(body);
    });
  }
}

function headersFor(contentType: string, as: Identity | undefined): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { 'Content-Type': contentType, Accept: 'application/json' };
  if (as !== undefined) {
    headers['Impersonate-User'] = as.name;
    if (as.groups.length > 0) headers['Impersonate-Group'] = [...as.groups];
  }
  return headers;
}
