// Create, update and patch for every served resource, run the way kube-apiserver's handlers run
// them (create.go, update.go, patch.go): decode, NamespaceLifecycle's existence check, both webhook
// admission phases (admission-dispatcher.ts) with the requester's identity, then — unless the
// request says dryRun=All — the write. The answer is the admitted object (201 on create, 200
// otherwise) with the webhooks' warnings as Warning headers, or the Status that stopped it.
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../src/api/types.ts';
import type { Route, RouteRequest, RouteResponder, StoredObject } from '../apiserver/index.ts';
import type { ObjectStore } from '../apiserver/object-store.ts';
import { apiStatus, applyJsonPatch, applyMergePatch } from '../apiserver/index.ts';
import type { AdmissionAttributes, AdmissionOperation } from './admission-attributes.ts';
import { admit, type DispatcherEnvironment } from './admission-dispatcher.ts';
import { applyStrategicMergePatch } from './apply-patch.ts';
import { requestUser } from './impersonation.ts';
import { kubeStatus, type KubeStatus } from './kube-status.ts';
import { apiVersionOf, namespaceType, type ServedResource } from './served-resources.ts';
import { admissionWarningHeader } from './warning-header.ts';

const nonStrategicPatchTypes = 'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';

export function writeRoutes(store: ObjectStore, type: ServedResource, environment: DispatcherEnvironment): Route[] {
  const base = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const collection = type.namespaced ? `${base}/namespaces/:namespace/${type.resource}` : `${base}/${type.resource}`;
  const item = `${collection}/:name`;
  const routes: Route[] = [
    { name: `create ${type.resource}`, method: 'POST', pattern: collection, handle: (request, respond) => create(request, respond) },
    { name: `update ${type.resource}`, method: 'PUT', pattern: item, handle: (request, respond) => update(request, respond, '') },
    { name: `patch ${type.resource}`, method: 'PATCH', pattern: item, handle: (request, respond) => update(request, respond, '') },
    // Deletes skip admission here: no webhook the chart renders asks for DELETE.
    {
      name: `delete ${type.resource}`,
      method: 'DELETE',
      pattern: item,
      handle: (request, respond) => {
        const name = request.params.name ?? '';
        const current = store.get(type, request.params.namespace ?? '', name);
        if (current === undefined || !store.delete(type, request.params.namespace ?? '', name)) return respond.status(apiStatus.notFound(type.group, type.resource, name));
        respond.json(200, current);
      },
    },
  ];
  for (const subresource of Object.keys(type.subresources ?? {})) {
    routes.push(
      // kubectl patch --subresource reads the object through the subresource first.
      {
        name: `get ${type.resource}/${subresource}`,
        method: 'GET',
        pattern: `${item}/${subresource}`,
        handle: (request, respond) => {
          const current = store.get(type, request.params.namespace ?? '', request.params.name ?? '');
          if (current === undefined) respond.status(apiStatus.notFound(type.group, type.resource, request.params.name ?? ''));
          else respond.json(200, current);
        },
      },
    );
    routes.push(
      { name: `update ${type.resource}/${subresource}`, method: 'PUT', pattern: `${item}/${subresource}`, handle: (request, respond) => update(request, respond, subresource) },
      { name: `patch ${type.resource}/${subresource}`, method: 'PATCH', pattern: `${item}/${subresource}`, handle: (request, respond) => update(request, respond, subresource) },
    );
  }
  return routes;

  async function create(request: RouteRequest, respond: RouteResponder): Promise<void> {
    const namespace = request.params.namespace ?? '';
    const object = request.body as KubeObject | undefined;
    const problem = checkBody(object, namespace);
    if (problem !== undefined) return respond.json(problem.code, problem);
    const candidate = withDefaults(structuredClone(object!));
    if (type.namespaced) candidate.metadata = { ...candidate.metadata, namespace };
    const name = candidate.metadata?.name ?? '';
    const outcome = await runAdmission(request, 'CREATE', '', name, candidate, undefined, 'CreateOptions');
    if (!outcome.ok) return respondFailure(respond, outcome.status, outcome.headers);
    if (store.get(type, namespace, name) !== undefined) {
      return respondFailure(respond, kubeStatus(409, 'AlreadyExists', `${qualifiedResource()} "${name}" already exists`, { name, group: type.group, kind: type.resource }), outcome.headers);
    }
    respond.json(201, persist(request, outcome.object, undefined), outcome.headers);
  }

  async function update(request: RouteRequest, respond: RouteResponder, subresource: string): Promise<void> {
    const namespace = request.params.namespace ?? '';
    const name = request.params.name ?? '';
    const current = store.get(type, namespace, name);
    if (current === undefined) return respond.status(apiStatus.notFound(type.group, type.resource, name));
    let updated: KubeObject;
    if (request.method === 'PUT') {
      const problem = checkBody(request.body as KubeObject | undefined, namespace);
      if (problem !== undefined) return respond.json(problem.code, problem);
      updated = structuredClone(request.body as KubeObject);
    } else {
      const contentType = String(request.headers['content-type'] ?? '').split(';')[0]!.trim();
      try {
        updated = patched(contentType, current, request.body, type.custom === true) as KubeObject;
      } catch (error) {
        if (error instanceof UnsupportedPatchError) return respond.json(415, kubeStatus(415, 'UnsupportedMediaType', error.message));
        return respond.json(422, kubeStatus(422, 'Invalid', `${qualifiedResource()} "${name}" is invalid: ${(error as Error).message}`));
      }
    }
    updated = withDefaults(updated);
    // Identity fields are the server's, whatever the body says.
    updated.apiVersion = current.apiVersion;
    updated.kind = current.kind;
    updated.metadata = { ...updated.metadata, name, uid: current.metadata?.uid, ...(type.namespaced ? { namespace } : {}) };
    const outcome = await runAdmission(request, 'UPDATE', subresource, name, updated, current as KubeObject, 'UpdateOptions');
    if (!outcome.ok) return respondFailure(respond, outcome.status, outcome.headers);
    respond.json(200, persist(request, outcome.object, current), outcome.headers);
  }

  function checkBody(object: KubeObject | undefined, namespace: string): KubeStatus | undefined {
    if (object === undefined || typeof object !== 'object') return kubeStatus(400, 'BadRequest', 'the body of the request was empty');
    if (object.apiVersion !== apiVersionOf(type) || object.kind !== type.kind) {
      return kubeStatus(400, 'BadRequest', `the API version in the data (${object.apiVersion}) does not match the expected API version (${apiVersionOf(type)})`);
    }
    if (!object.metadata?.name) return kubeStatus(422, 'Invalid', `${type.kind} "" is invalid: metadata.name: Required value: name or generateName is required`);
    if (type.namespaced && object.metadata.namespace !== undefined && object.metadata.namespace !== namespace) {
      return kubeStatus(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
    }
    // NamespaceLifecycle (the first in-tree admission plugin): no objects in a namespace that does not exist.
    if (type.namespaced && store.get(namespaceType, '', namespace) === undefined) {
      return kubeStatus(404, 'NotFound', `namespaces "${namespace}" not found`, { name: namespace, kind: 'namespaces' });
    }
    return undefined;
  }

  async function runAdmission(
    request: RouteRequest,
    operation: AdmissionOperation,
    subresource: string,
    name: string,
    object: KubeObject,
    oldObject: KubeObject | undefined,
    optionsKind: 'CreateOptions' | 'UpdateOptions',
  ): Promise<{ ok: true; object: KubeObject; headers: Record<string, string> } | { ok: false; status: KubeStatus; headers: Record<string, string> }> {
    const user = requestUser(request.headers);
    if ('error' in user) return { ok: false, status: kubeStatus(400, 'BadRequest', user.error), headers: {} };
    const dryRun = request.query.getAll('dryRun');
    const options: Record<string, unknown> = { kind: optionsKind, apiVersion: 'meta.k8s.io/v1' };
    if (dryRun.length > 0) options.dryRun = dryRun;
    const fieldManager = request.query.get('fieldManager');
    if (fieldManager !== null) options.fieldManager = fieldManager;
    const attributes: AdmissionAttributes = {
      kind: { group: type.group, version: type.version, kind: type.kind },
      resource: { group: type.group, version: type.version, resource: type.resource },
      subresource,
      namespace: type.namespaced ? (request.params.namespace ?? '') : '',
      name,
      operation,
      options,
      dryRun: dryRun.includes('All'),
      userInfo: user,
      object,
      oldObject,
    };
    const outcome = await admit(attributes, environment);
    const warning = admissionWarningHeader(outcome.warnings);
    const headers: Record<string, string> = warning === undefined ? {} : { Warning: warning };
    return outcome.allowed ? { ok: true, object: outcome.object ?? object, headers } : { ok: false, status: outcome.status, headers };
  }

  function persist(request: RouteRequest, object: KubeObject, current: StoredObject | undefined): StoredObject {
    const result = structuredClone(object) as StoredObject;
    result.metadata = {
      ...result.metadata,
      uid: current?.metadata?.uid ?? result.metadata?.uid ?? randomUUID(),
      creationTimestamp: (current?.metadata?.creationTimestamp as string | undefined) ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    if (request.query.getAll('dryRun').includes('All')) {
      // Nothing is written: the answer keeps the stored resourceVersion (or none, on create).
      if (current?.metadata?.resourceVersion !== undefined) result.metadata.resourceVersion = current.metadata.resourceVersion;
      else delete result.metadata.resourceVersion;
      return result;
    }
    return store.put(type, result);
  }

  // Decoding applies defaults before admission; the one our webhooks' selectors depend on is
  // SetDefaults_Namespace's kubernetes.io/metadata.name label.
  function withDefaults(object: KubeObject): KubeObject {
    if (type !== namespaceType) return object;
    const name = object.metadata?.name ?? '';
    return { ...object, metadata: { ...object.metadata, labels: { ...object.metadata?.labels, 'kubernetes.io/metadata.name': name } } };
  }

  function qualifiedResource(): string {
    return type.group === '' ? type.resource : `${type.resource}.${type.group}`;
  }
}

class UnsupportedPatchError extends Error {}

// Custom resources have no strategic merge metadata, so kube-apiserver refuses that patch type for them.
function patched(contentType: string, current: unknown, body: unknown, custom: boolean): unknown {
  if (contentType === 'application/strategic-merge-patch+json' && custom) {
    throw new UnsupportedPatchError(`the body of the request was in an unknown format - accepted media types include: ${nonStrategicPatchTypes}`);
  }
  switch (contentType) {
    case 'application/merge-patch+json':
      return applyMergePatch(current, body);
    case 'application/json-patch+json':
      return applyJsonPatch(current, body);
    case 'application/strategic-merge-patch+json':
      return applyStrategicMergePatch(current, body);
    default:
      throw new UnsupportedPatchError(`the body of the request was in an unknown format - accepted media types include: ${nonStrategicPatchTypes}, application/strategic-merge-patch+json`);
  }
}

function respondFailure(respond: RouteResponder, status: KubeStatus, headers: Record<string, string>): void {
  respond.json(status.code, status, headers);
}
