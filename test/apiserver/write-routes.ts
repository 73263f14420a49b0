// Generic create / replace / patch / delete endpoints over the object store for one resource type,
// with kube-apiserver's REST semantics: an update or patch that carries a resourceVersion other than
// the stored one is refused with 409 Conflict (optimistic concurrency); create refuses an existing
// name with 409 AlreadyExists; delete answers a Success Status; a missing object is 404.
import type { ObjectStore, ResourceType, StoredObject } from './object-store.ts';
import { applyJsonPatch, applyMergePatch } from './patches.ts';
import type { Route, RouteRequest, RouteResponder } from './routes.ts';
import { type ApiStatus, badRequest, notFound, statusForCode } from './status.ts';

const qualified = (type: ResourceType) => (type.group === '' ? type.resource : `${type.resource}.${type.group}`);

/** apierrors.NewConflict for an update over a stale resourceVersion. */
export function conflict(type: ResourceType, name: string): ApiStatus {
  const status = statusForCode(
    409,
    `Operation cannot be fulfilled on ${qualified(type)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
  );
  return { ...status, details: { name, group: type.group, kind: type.resource } };
}

function alreadyExists(type: ResourceType, name: string): ApiStatus {
  return {
    ...statusForCode(409, `${qualified(type)} "${name}" already exists`),
    reason: 'AlreadyExists',
    details: { name, group: type.group, kind: type.resource },
  };
}

/** Route names: "create secrets", "update secrets", "patch secrets", "delete secrets". */
export function writeRoutes(store: ObjectStore, type: ResourceType): Route[] {
  const base = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const collection = type.namespaced ? `${base}/namespaces/:namespace/${type.resource}` : `${base}/${type.resource}`;
  const item = `${collection}/:name`;
  const apiVersion = type.group === '' ? type.version : `${type.group}/${type.version}`;
  const namespaceOf = (request: RouteRequest) => request.params.namespace ?? '';

  const write = (request: RouteRequest, respond: RouteResponder, current: StoredObject, next: unknown, code: number) => {
    if (typeof next !== 'object' || next === null || Array.isArray(next))
      return respond.status(badRequest('the body of the request was not an object'));
    const object = next as StoredObject;
    const name = request.params.name ?? '';
    const sent = object.metadata?.resourceVersion;
    if (sent !== undefined && sent !== '' && sent !== current.metadata?.resourceVersion) return respond.status(conflict(type, name));
    object.metadata = {
      ...object.metadata,
      name,
      uid: current.metadata?.uid,
      ...(type.namespaced ? { namespace: namespaceOf(request) } : {}),
    };
    respond.json(code, store.put(type, object));
  };

  return [
    {
      name: `create ${type.resource}`,
      method: 'POST',
      pattern: collection,
      handle(request, respond) {
        const object = request.body as StoredObject | undefined;
        const name = object?.metadata?.name;
        if (!name) return respond.status(badRequest('metadata.name: Required value: name or generateName is required'));
        if (store.get(type, namespaceOf(request), name) !== undefined) return respond.status(alreadyExists(type, name));
        const { resourceVersion: _ignored, ...metadata } = object.metadata ?? {};
        respond.json(
          201,
          store.put(type, {
            ...object,
            apiVersion,
            kind: type.kind,
            metadata: { ...metadata, name, ...(type.namespaced ? { namespace: namespaceOf(request) } : {}) },
          }),
        );
      },
    },
    {
      name: `update ${type.resource}`,
      method: 'PUT',
      pattern: item,
      handle(request, respond) {
        const current = store.get(type, namespaceOf(request), request.params.name ?? '');
        if (current === undefined) return respond.status(notFound(type.group, type.resource, request.params.name ?? ''));
        write(request, respond, current, structuredClone(request.body), 200);
      },
    },
    {
      name: `patch ${type.resource}`,
      method: 'PATCH',
      pattern: item,
      handle(request, respond) {
        const current = store.get(type, namespaceOf(request), request.params.name ?? '');
        if (current === undefined) return respond.status(notFound(type.group, type.resource, request.params.name ?? ''));
        const contentType = String(request.headers['content-type'] ?? '')
          .split(';')[0]!
          .trim();
        let next: unknown;
        try {
          if (contentType === 'application/merge-patch+json') next = applyMergePatch(current, request.body);
          else if (contentType === 'application/json-patch+json') next = applyJsonPatch(current, request.body);
          else
            return respond.status(
              statusForCode(
                415,
                `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json`,
              ),
            );
        } catch (error) {
          return respond.status(statusForCode(422, (error as Error).message));
        }
        write(request, respond, current, next, 200);
      },
    },
    {
      name: `delete ${type.resource}`,
      method: 'DELETE',
      pattern: item,
      handle(request, respond) {
        const name = request.params.name ?? '';
        const current = store.get(type, namespaceOf(request), name);
        if (current === undefined || !store.delete(type, namespaceOf(request), name))
          return respond.status(notFound(type.group, type.resource, name));
        respond.json(200, {
          apiVersion: 'v1',
          kind: 'Status',
          metadata: {},
          status: 'Success',
          details: { name, group: type.group, kind: type.resource, uid: current.metadata?.uid },
        });
      },
    },
  ];
}
