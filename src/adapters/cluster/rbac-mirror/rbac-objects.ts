// What the RBAC mirror keeps of each Role, ClusterRole, RoleBinding and ClusterRoleBinding: only the
// fields RBAC evaluation reads (name, namespace, rules, subjects, roleRef) plus the resourceVersion,
// as plain JSON. Objects arrive typed from LIST and raw from WATCH; both are projected the moment
// they arrive, so a cluster's labels, annotations and managedFields never reach the cache.
// aggregationRule is left out on purpose: the aggregation controller has already written an
// aggregated ClusterRole's rules, and kube-apiserver's RBAC authorizer reads only those.
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject } from '../../../api/rbac.ts';
import type { ObjectMeta } from '../../../api/types.ts';

type Loose = Record<string, unknown> | undefined;

export function projectRole(object: unknown): Role {
  const source = object as Loose;
  return { metadata: projectMetadata(source?.metadata), rules: projectRules(source?.rules) };
}

export function projectClusterRole(object: unknown): ClusterRole {
  return projectRole(object);
}

export function projectRoleBinding(object: unknown): RoleBinding {
  const source = object as Loose;
  const binding: RoleBinding = { metadata: projectMetadata(source?.metadata), roleRef: projectRoleRef(source?.roleRef) };
  const subjects = projectSubjects(source?.subjects);
  if (subjects !== undefined) binding.subjects = subjects;
  return binding;
}

export function projectClusterRoleBinding(object: unknown): ClusterRoleBinding {
  return projectRoleBinding(object);
}

function projectMetadata(value: unknown): ObjectMeta {
  const metadata = value as Loose;
  const out: ObjectMeta = {};
  if (typeof metadata?.name === 'string') out.name = metadata.name;
  if (typeof metadata?.namespace === 'string' && metadata.namespace !== '') out.namespace = metadata.namespace;
  if (typeof metadata?.resourceVersion === 'string') out.resourceVersion = metadata.resourceVersion;
  return out;
}

function projectRules(value: unknown): PolicyRule[] {
  if (!Array.isArray(value)) return [];
  return value.map((item) => {
    const rule = item as Loose;
    const out: PolicyRule = { verbs: strings(rule?.verbs) ?? [] };
    const apiGroups = strings(rule?.apiGroups);
    const resources = strings(rule?.resources);
    const resourceNames = strings(rule?.resourceNames);
    const nonResourceURLs = strings(rule?.nonResourceURLs);
    if (apiGroups !== undefined) out.apiGroups = apiGroups;
    if (resources !== undefined) out.resources = resources;
    if (resourceNames !== undefined) out.resourceNames = resourceNames;
    if (nonResourceURLs !== undefined) out.nonResourceURLs = nonResourceURLs;
    return out;
  });
}

function projectSubjects(value: unknown): Subject[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.map((item) => {
    const subject = item as Loose;
    const out: Subject = { kind: text(subject?.kind), name: text(subject?.name) };
    if (typeof subject?.apiGroup === 'string') out.apiGroup = subject.apiGroup;
    if (typeof subject?.namespace === 'string' && subject.namespace !== '') out.namespace = subject.namespace;
    return out;
  });
}

function projectRoleRef(value: unknown): RoleRef {
  const ref = value as Loose;
  return { apiGroup: text(ref?.apiGroup), kind: text(ref?.kind), name: text(ref?.name) };
}

/** A list of strings, copied; anything else in the list is dropped (the API server never sends it). */
function strings(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter((item): item is string => typeof item === 'string');
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
