// Generic GET / LIST / WATCH endpoints over the object store for one resource type, on the same
// paths kube-apiserver serves them (core group under /api, others under /apis).
import { notFound } from './status.ts';
import type { ObjectStore, ResourceType } from './object-store.ts';
import type { Route } from './routes.ts';

function groupVersionPath(type: ResourceType): string {
  return type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
}

const isWatch = (query: URLSearchParams) => query.get('watch') === 'true' || query.get('watch') === '1';
const isList = (query: URLSearchParams) => !isWatch(query);

/** Route names: "get serviceaccounts", "list serviceaccounts", "watch serviceaccounts". */
export function resourceRoutes(store: ObjectStore, type: ResourceType): Route[] {
  const base = groupVersionPath(type);
  const collectionPaths = type.namespaced ? [`${base}/namespaces/:namespace/${type.resource}`, `${base}/${type.resource}`] : [`${base}/${type.resource}`];
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
          respond.json(200, {
            apiVersion,
            kind: `${type.kind}List`,
            metadata: { resourceVersion: store.resourceVersion },
            items: store.list(type, request.params.namespace),
          });
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
          const stop = store.watch(type, request.params.namespace, since, (event) => stream.send(event));
          const timeoutSeconds = Number(request.query.get('timeoutSeconds') ?? 0);
          const timer = timeoutSeconds > 0 ? setTimeout(() => stream.end(), timeoutSeconds * 1000) : undefined;
          request.signal.addEventListener('abort', () => {
            stop();
            clearTimeout(timer);
            stream.end();
          }, { once: true });
        },
      },
    );
  }
  return routes;
}
