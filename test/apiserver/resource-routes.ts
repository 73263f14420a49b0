// Generic GET / LIST / WATCH endpoints over the object store for one resource type, on the same
// paths kube-apiserver serves them (core group under /api, others under /apis).

import type { ObjectStore, ResourceType, StoredObject } from './object-store.ts';
import type { Route } from './routes.ts';
import { badRequest, notFound } from './status.ts';

function groupVersionPath(type: ResourceType): string {
  return type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
}

const isWatch = (query: URLSearchParams) => query.get('watch') === 'true' || query.get('watch') === '1';
const isList = (query: URLSearchParams) => !isWatch(query);

/**
 * One LIST page, as kube-apiserver pages with `limit` and `continue`: every page carries the first
 * page's resourceVersion (the watch resumes from there), and a page that stops short carries an
 * opaque token to the next. The store keeps no snapshots, so later pages show objects as they are
 * now; the watch from the first page's resourceVersion replays what changed meanwhile, so a cache
 * filled this way ends up exactly where a snapshot would have left it.
 */
function listPage(
  store: ObjectStore,
  type: ResourceType,
  namespace: string | undefined,
  query: URLSearchParams,
): { error: string } | { metadata: Record<string, unknown>; items: StoredObject[] } {
  const limit = Number(query.get('limit') ?? 0);
  const token = query.get('continue');
  let resourceVersion = store.resourceVersion;
  let after = '';
  if (token) {
    try {
      const decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { rv: string; after: string };
      if (typeof decoded.rv !== 'string' || typeof decoded.after !== 'string') throw new Error('malformed');
      ({ rv: resourceVersion, after } = decoded);
    } catch {
      return { error: `continue key is not valid: ${token}` };
    }
  }
  const page = store.listPage(type, namespace, after, Number.isInteger(limit) && limit > 0 ? limit : 0);
  const metadata: Record<string, unknown> = { resourceVersion };
  const last = page.items[page.items.length - 1];
  if (page.remaining > 0 && last !== undefined) {
    metadata.continue = Buffer.from(
      JSON.stringify({ rv: resourceVersion, after: `${last.metadata?.namespace ?? ''}/${last.metadata?.name ?? ''}` }),
    ).toString('base64url');
    metadata.remainingItemCount = page.remaining;
  }
  const items = page.items;
  return { metadata, items };
}

/** Route names: "get serviceaccounts", "list serviceaccounts", "watch serviceaccounts". */
export function resourceRoutes(store: ObjectStore, type: ResourceType): Route[] {
  const base = groupVersionPath(type);
  const collectionPaths = type.namespaced
    ? [`${base}/namespaces/:namespace/${type.resource}`, `${base}/${type.resource}`]
    : [`${base}/${type.resource}`];
  const itemPath = type.namespaced ? `${base}/namespaces/:namespace/${type.resource}/:name` : `${base}/${type.resource}/:name`;
  const apiVersion = type.group === '' ? type.version : `${type.group}/${type.version}`;

  const routes: Route[] = [
    {
      name: `get ${type.resource}`,
      method: 'GET',
      pattern: itemPath,
      handle(request, respond) {
        const namespace = request.params.namespace ?? '';
        const name = request.params.name ?? '';
        const object = store.get(type, namespace, name);
        if (object === undefined) respond.status(notFound(type.group, type.resource, name));
        else respond.json(200, object);
      },
    },
  ];
  for (const pattern of collectionPaths) {
    routes.push(
      {
        name: `list ${type.resource}`,
        method: 'GET',
        pattern,
        when: isList,
        handle(request, respond) {
          const page = listPage(store, type, request.params.namespace, request.query);
          if ('error' in page) respond.status(badRequest(page.error));
          else respond.json(200, { apiVersion, kind: `${type.kind}List`, metadata: page.metadata, items: page.items });
        },
      },
      {
        name: `watch ${type.resource}`,
        method: 'GET',
        pattern,
        when: isWatch,
        handle(request, respond) {
          const since = Number(request.query.get('resourceVersion') ?? store.resourceVersion) || 0;
          const stream = respond.stream();
          const stop = store.watch(
            type,
            request.params.namespace,
            since,
            (event) => stream.send(event),
            () => stream.end(),
          );
          const timeoutSeconds = Number(request.query.get('timeoutSeconds') ?? 0);
          const timer = timeoutSeconds > 0 ? setTimeout(() => stream.end(), timeoutSeconds * 1000) : undefined;
          request.signal.addEventListener(
            'abort',
            () => {
              stop();
              clearTimeout(timer);
              stream.end();
            },
            { once: true },
          );
        },
      },
    );
  }
  return routes;
}
