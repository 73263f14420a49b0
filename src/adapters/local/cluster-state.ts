// The local cluster state (`--cluster-state FILE`): Kubernetes objects in YAML or JSON, one or many
// documents, or a List. It backs the embedded default: RBAC, discovery, and lookups.
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from '../../api/rbac.ts';
import type { KubeObject } from '../../api/types.ts';
import type { Node, RuntimeClass, SecretReference, ServiceAccount } from '../../ports/lookups.ts';

export interface APIResource {
  name: string;
  singularName?: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
}

export interface APIResourceList extends KubeObject {
  groupVersion: string;
  resources: APIResource[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec: {
    group: string;
    names: { plural: string; singular?: string; kind: string; shortNames?: string[] };
    scope: 'Namespaced' | 'Cluster';
    versions: Array<{ name: string; served: boolean; storage?: boolean }>;
  };
}

export interface ClusterState {
  roles: Role[];
  clusterRoles: ClusterRole[];
  roleBindings: RoleBinding[];
  clusterRoleBindings: ClusterRoleBinding[];
  serviceAccounts: ServiceAccount[];
  /** Secrets with data and stringData removed at load: we never hold secret values. */
  secrets: SecretReference[];
  namespaces: KubeObject[];
  runtimeClasses: RuntimeClass[];
  /** Nodes, for their labels (PodTopologyLabels). */
  nodes: Node[];
  customResourceDefinitions: CustomResourceDefinition[];
  apiResourceLists: APIResourceList[];
}

export class ClusterStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClusterStateError';
  }
}

export function emptyClusterState(): ClusterState {
  return {
    roles: [],
    clusterRoles: [],
    roleBindings: [],
    clusterRoleBindings: [],
    serviceAccounts: [],
    secrets: [],
    namespaces: [],
    runtimeClasses: [],
    nodes: [],
    customResourceDefinitions: [],
    apiResourceLists: [],
  };
}

const accepted: Record<string, { apiVersions: string[]; collection: keyof ClusterState }> = {
  Role: { apiVersions: ['rbac.authorization.k8s.io/v1'], collection: 'roles' },
  ClusterRole: { apiVersions: ['rbac.authorization.k8s.io/v1'], collection: 'clusterRoles' },
  RoleBinding: { apiVersions: ['rbac.authorization.k8s.io/v1'], collection: 'roleBindings' },
  ClusterRoleBinding: { apiVersions: ['rbac.authorization.k8s.io/v1'], collection: 'clusterRoleBindings' },
  ServiceAccount: { apiVersions: ['v1'], collection: 'serviceAccounts' },
  Secret: { apiVersions: ['v1'], collection: 'secrets' },
  Namespace: { apiVersions: ['v1'], collection: 'namespaces' },
  RuntimeClass: { apiVersions: ['node.k8s.io/v1'], collection: 'runtimeClasses' },
  Node: { apiVersions: ['v1'], collection: 'nodes' },
  CustomResourceDefinition: { apiVersions: ['apiextensions.k8s.io/v1'], collection: 'customResourceDefinitions' },
  APIResourceList: { apiVersions: ['v1'], collection: 'apiResourceLists' },
};

export async function loadClusterStateFile(path: string): Promise<ClusterState> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ClusterStateError(`cannot read cluster state ${path}: ${(error as Error).message}`);
  }
  return parseClusterState(text, path);
}

/** Parses YAML (which includes JSON) with one or more documents; Lists are flattened. */
export function parseClusterState(text: string, source = 'cluster state'): ClusterState {
  const state = emptyClusterState();
  const documents = parseAllDocuments(text);
  if (!Array.isArray(documents)) {
    // An empty stream parses as an EmptyStream object: an empty state.
    return state;
  }
  documents.forEach((doc, index) => {
    const where = `${source}: document ${index + 1}`;
    if (doc.errors.length > 0) {
      throw new ClusterStateError(`${where}: invalid YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) return;
    addObject(state, value, where);
  });
  return state;
}

function addObject(state: ClusterState, value: unknown, where: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ClusterStateError(`${where}: expected a Kubernetes object, got ${Array.isArray(value) ? 'an array' : typeof value}`);
  }
  const obj = value as KubeObject;
  const kind = obj.kind;
  if (typeof kind !== 'string' || kind === '') {
    throw new ClusterStateError(`${where}: object has no kind`);
  }
  if (kind === 'List' || (kind.endsWith('List') && kind !== 'APIResourceList')) {
    const items = (obj as { items?: unknown }).items;
    if (!Array.isArray(items)) throw new ClusterStateError(`${where}: ${kind} has no items array`);
    items.forEach((item, i) => {
      addObject(state, item, `${where}, item ${i + 1}`);
    });
    return;
  }
  const name = kind === 'APIResourceList' ? (obj as { groupVersion?: string }).groupVersion : obj.metadata?.name;
  const label = `${where} (${kind} ${JSON.stringify(name ?? '')})`;
  const entry = accepted[kind];
  if (!entry) {
    throw new ClusterStateError(`${label}: unsupported kind ${kind}; supported kinds: ${Object.keys(accepted).join(', ')}`);
  }
  if (!entry.apiVersions.includes(String(obj.apiVersion))) {
    throw new ClusterStateError(
      `${label}: unsupported apiVersion ${JSON.stringify(obj.apiVersion)} for ${kind}; expected ${entry.apiVersions.join(' or ')}`,
    );
  }
  if (kind === 'APIResourceList') {
    const list = obj as Partial<APIResourceList>;
    if (typeof list.groupVersion !== 'string' || !Array.isArray(list.resources)) {
      throw new ClusterStateError(`${label}: APIResourceList needs groupVersion and resources`);
    }
  } else if (typeof name !== 'string' || name === '') {
    throw new ClusterStateError(`${label}: metadata.name is required`);
  }
  checkShape(kind, obj as unknown as Record<string, unknown>, label);
  if (kind === 'Secret') {
    const { data: _data, stringData: _stringData, ...rest } = obj as KubeObject & { data?: unknown; stringData?: unknown };
    (state.secrets as KubeObject[]).push(rest);
    return;
  }
  (state[entry.collection] as KubeObject[]).push(obj);
}

// Shapes are checked at load, field by field, because these objects answer authorization
// questions: a scalar where a list belongs ("resources: '*/finalizers'") must be an error naming
// the field, never a string that code then walks character by character.
function checkShape(kind: string, obj: Record<string, unknown>, label: string): void {
  const fail = (field: string, expected: string) => {
    throw new ClusterStateError(`${label}: ${field} must be ${expected}`);
  };
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const stringList = (v: unknown, field: string, required = false) => {
    if (v === undefined && !required) return;
    if (!Array.isArray(v) || !v.every((item) => typeof item === 'string')) fail(field, 'a list of strings');
  };
  const optionalString = (v: unknown, field: string) => {
    if (v !== undefined && typeof v !== 'string') fail(field, 'a string');
  };
  const requiredString = (v: unknown, field: string) => {
    if (typeof v !== 'string' || v === '') fail(field, 'a non-empty string');
  };
  const objectList = (v: unknown, field: string): Record<string, unknown>[] => {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || !v.every(isObject)) fail(field, 'a list of objects');
    return v as Record<string, unknown>[];
  };
  const stringMap = (v: unknown, field: string) => {
    if (v === undefined) return;
    if (!isObject(v) || !Object.values(v).every((x) => typeof x === 'string')) fail(field, 'a map of strings');
  };

  switch (kind) {
    case 'Role':
    case 'ClusterRole': {
      objectList(obj.rules, 'rules').forEach((rule, i) => {
        stringList(rule.verbs, `rules[${i}].verbs`, true);
        for (const field of ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const)
          stringList(rule[field], `rules[${i}].${field}`);
      });
      if (kind === 'ClusterRole' && obj.aggregationRule !== undefined) {
        if (!isObject(obj.aggregationRule)) fail('aggregationRule', 'an object');
        objectList((obj.aggregationRule as Record<string, unknown>).clusterRoleSelectors, 'aggregationRule.clusterRoleSelectors').forEach(
          (selector, i) => {
            stringMap(selector.matchLabels, `aggregationRule.clusterRoleSelectors[${i}].matchLabels`);
          },
        );
      }
      return;
    }
    case 'RoleBinding':
    case 'ClusterRoleBinding': {
      if (!isObject(obj.roleRef)) fail('roleRef', 'an object');
      const roleRef = obj.roleRef as Record<string, unknown>;
      requiredString(roleRef.kind, 'roleRef.kind');
      requiredString(roleRef.name, 'roleRef.name');
      optionalString(roleRef.apiGroup, 'roleRef.apiGroup');
      objectList(obj.subjects, 'subjects').forEach((subject, i) => {
        requiredString(subject.kind, `subjects[${i}].kind`);
        requiredString(subject.name, `subjects[${i}].name`);
        optionalString(subject.apiGroup, `subjects[${i}].apiGroup`);
        optionalString(subject.namespace, `subjects[${i}].namespace`);
      });
      return;
    }
    case 'ServiceAccount': {
      if (obj.automountServiceAccountToken !== undefined && typeof obj.automountServiceAccountToken !== 'boolean')
        fail('automountServiceAccountToken', 'true or false');
      for (const [i, ref] of objectList(obj.secrets, 'secrets').entries()) optionalString(ref.name, `secrets[${i}].name`);
      for (const [i, ref] of objectList(obj.imagePullSecrets, 'imagePullSecrets').entries())
        optionalString(ref.name, `imagePullSecrets[${i}].name`);
      return;
    }
    case 'RuntimeClass': {
      requiredString(obj.handler, 'handler');
      if (obj.scheduling !== undefined) {
        if (!isObject(obj.scheduling)) fail('scheduling', 'an object');
        const scheduling = obj.scheduling as Record<string, unknown>;
        stringMap(scheduling.nodeSelector, 'scheduling.nodeSelector');
        objectList(scheduling.tolerations, 'scheduling.tolerations');
      }
      if (obj.overhead !== undefined && !isObject(obj.overhead)) fail('overhead', 'an object');
      return;
    }
    case 'Node': {
      if (obj.metadata !== undefined && !isObject(obj.metadata)) fail('metadata', 'an object');
      stringMap((obj.metadata as Record<string, unknown> | undefined)?.labels, 'metadata.labels');
      return;
    }
    default:
      return;
  }
}
