// The smallest RBAC grant that answers a set of denied questions yes: for each (namespace, verb,
// API group, resource/subresource) one Role (a ClusterRole when the question had no namespace)
// with exactly one rule — that verb, that group, that resource, and the names asked about as
// resourceNames — bound to the requester in the same scope. Nothing broader: a rule grants only
// what some question asked, and every question gets what it asked. Versions are not part of RBAC.
import { createHash } from 'node:crypto';
import type { PolicyRule, Subject } from '../api/rbac.ts';
import type { KubeObject } from '../api/types.ts';
import type { AuthorizationAttributes } from '../ports/authorizer.ts';
import { commandLine } from './shell.ts';
import { rbacApiGroup } from './subject.ts';

export interface RoleObject extends KubeObject {
  apiVersion: 'rbac.authorization.k8s.io/v1';
  kind: 'Role' | 'ClusterRole';
  metadata: { name: string; namespace?: string };
  rules: PolicyRule[];
}

export interface BindingObject extends KubeObject {
  apiVersion: 'rbac.authorization.k8s.io/v1';
  kind: 'RoleBinding' | 'ClusterRoleBinding';
  metadata: { name: string; namespace?: string };
  roleRef: { apiGroup: string; kind: 'Role' | 'ClusterRole'; name: string };
  subjects: Subject[];
}

export interface Grant {
  readonly role: RoleObject;
  readonly binding: BindingObject;
  /** `kubectl create role …` and `kubectl create rolebinding …` that make exactly these, when kubectl can. */
  readonly commands?: readonly [string, string];
}

interface Scope {
  namespace: string;
  rule: PolicyRule;
  /** Words of the role's name before sanitising. */
  nameParts: string[];
  resourceNames: string[];
  /** A question in this scope asked about no particular name: no resourceNames then. */
  anyName: boolean;
}

const rbacVersion = 'rbac.authorization.k8s.io/v1';
/** kubectl create clusterrole accepts only these verbs with --non-resource-url. */
const kubectlNonResourceVerbs = new Set(['*', 'get', 'post', 'put', 'delete', 'patch', 'head', 'options']);
/** Names we make stay DNS-1123 labels, readable in `kubectl get roles`. */
const maxNameLength = 63;

/** One grant per scope, in the order the questions were asked; the subject is who gets them. */
export function minimalGrants(questions: readonly AuthorizationAttributes[], subject: Subject): Grant[] {
  const scopes = new Map<string, Scope>();
  for (const question of questions) {
    const scope = scopeOf(question);
    const known = scopes.get(scope.key);
    if (known === undefined) {
      scopes.set(scope.key, scope.value);
      continue;
    }
    known.anyName ||= scope.value.anyName;
    for (const name of scope.value.resourceNames) if (!known.resourceNames.includes(name)) known.resourceNames.push(name);
  }
  const taken = new Set<string>();
  return [...scopes.values()].map((scope) => grantFor(scope, subject, taken));
}

function scopeOf(question: AuthorizationAttributes): { key: string; value: Scope } {
  const resource = question.resourceAttributes;
  if (resource !== undefined) {
    const namespace = resource.namespace ?? '';
    const verb = resource.verb ?? '';
    const group = resource.group ?? '';
    const combined = resource.subresource ? `${resource.resource ?? ''}/${resource.subresource}` : (resource.resource ?? '');
    const name = resource.name ?? '';
    return {
      key: JSON.stringify(['resource', namespace, verb, group, combined]),
      value: {
        namespace,
        rule: { apiGroups: [group], resources: [combined], verbs: [verb] },
        nameParts: [verb, combined],
        resourceNames: name === '' ? [] : [name],
        anyName: name === '',
      },
    };
  }
  const { verb, path } = question.nonResourceAttributes ?? { verb: '', path: '' };
  return {
    key: JSON.stringify(['non-resource', verb, path]),
    value: { namespace: '', rule: { nonResourceURLs: [path], verbs: [verb] }, nameParts: [verb, path], resourceNames: [], anyName: true },
  };
}

function grantFor(scope: Scope, subject: Subject, taken: Set<string>): Grant {
  const names = scope.anyName ? [] : scope.resourceNames;
  const rule: PolicyRule = names.length > 0 ? { ...scope.rule, resourceNames: [...names] } : scope.rule;
  const nameParts = [...scope.nameParts, ...(names.length === 1 ? names : names.length > 1 ? [`${names.length}-names`] : [])];
  const roleName = unique(objectName(nameParts), taken);
  const bindingName = unique(objectName([roleName, ...subjectNameParts(subject)]), taken);
  const namespaced = scope.namespace !== '';
  const role: RoleObject = {
    apiVersion: rbacVersion,
    kind: namespaced ? 'Role' : 'ClusterRole',
    metadata: namespaced ? { name: roleName, namespace: scope.namespace } : { name: roleName },
    rules: [orderedRule(rule)],
  };
  const binding: BindingObject = {
    apiVersion: rbacVersion,
    kind: namespaced ? 'RoleBinding' : 'ClusterRoleBinding',
    metadata: namespaced ? { name: bindingName, namespace: scope.namespace } : { name: bindingName },
    roleRef: { apiGroup: rbacApiGroup, kind: role.kind, name: roleName },
    subjects: [subject],
  };
  const commands = kubectlCommands(role, binding);
  return commands === undefined ? { role, binding } : { role, binding, commands };
}

/** The fields in the order kubectl's rules are read: what, on which, which names, how. */
function orderedRule(rule: PolicyRule): PolicyRule {
  const out: Partial<PolicyRule> = {};
  if (rule.apiGroups) out.apiGroups = rule.apiGroups;
  if (rule.resources) out.resources = rule.resources;
  if (rule.resourceNames) out.resourceNames = rule.resourceNames;
  if (rule.nonResourceURLs) out.nonResourceURLs = rule.nonResourceURLs;
  out.verbs = rule.verbs;
  return out as PolicyRule;
}

function subjectNameParts(subject: Subject): string[] {
  if (subject.kind === 'ServiceAccount') return [subject.namespace ?? '', subject.name];
  if (subject.kind === 'Group') return ['group', subject.name];
  return [subject.name];
}

/**
 * Lowercase letters, digits and dashes, at most 63 characters: separators (/ . : _ and spaces)
 * become dashes. When more than that changes (an uppercase verb, a "*", a name too long) a short
 * hash of the words keeps distinct grants apart.
 */
export function objectName(parts: readonly string[]): string {
  const joined = parts.filter((p) => p !== '').join('-');
  const separated = joined.replace(/[/.:_ ]/g, '-');
  let name = separated
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
  if (name === separated.replace(/-+/g, '-').replace(/^-|-$/g, '') && name.length <= maxNameLength) return name;
  const hash = createHash('sha256').update(joined).digest('hex').slice(0, 8);
  name = name.slice(0, maxNameLength - hash.length - 1).replace(/-$/, '');
  return name === '' ? `grant-${hash}` : `${name}-${hash}`;
}

function unique(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let i = 2; taken.has(candidate); i++) candidate = `${name.slice(0, maxNameLength - 1 - String(i).length)}-${i}`;
  taken.add(candidate);
  return candidate;
}

/** The kubectl commands that create exactly `role` and `binding`, or undefined when kubectl cannot. */
function kubectlCommands(role: RoleObject, binding: BindingObject): [string, string] | undefined {
  const rule = role.rules[0]!;
  const verb = rule.verbs[0]!;
  // --verb, --resource and --non-resource-url are comma-separated lists to kubectl.
  if (verb === '' || /[,"]/.test(verb)) return undefined;
  const namespace = role.metadata.namespace;
  const scope = namespace === undefined ? [] : ['-n', namespace];
  const words = ['kubectl', 'create', role.kind === 'Role' ? 'role' : 'clusterrole', role.metadata.name, ...scope, `--verb=${verb}`];
  if (rule.nonResourceURLs !== undefined) {
    const url = rule.nonResourceURLs[0]!;
    const wellFormed = url === '*' || (url.startsWith('/') && !url.slice(0, -1).includes('*'));
    if (!kubectlNonResourceVerbs.has(verb) || !wellFormed || /[,"]/.test(url)) return undefined;
    words.push(`--non-resource-url=${url}`);
  } else {
    const resourceFlag = resourceArgument(rule.apiGroups![0]!, rule.resources![0]!);
    if (resourceFlag === undefined) return undefined;
    words.push(`--resource=${resourceFlag}`, ...(rule.resourceNames ?? []).map((n) => `--resource-name=${n}`));
  }
  const subject = binding.subjects[0]!;
  const who =
    subject.kind === 'ServiceAccount'
      ? `--serviceaccount=${subject.namespace}:${subject.name}`
      : subject.kind === 'Group'
        ? `--group=${subject.name}`
        : `--user=${subject.name}`;
  const bindingWords = [
    'kubectl',
    'create',
    binding.kind === 'RoleBinding' ? 'rolebinding' : 'clusterrolebinding',
    binding.metadata.name,
    ...scope,
    role.kind === 'Role' ? `--role=${role.metadata.name}` : `--clusterrole=${role.metadata.name}`,
    who,
  ];
  return [commandLine(words), commandLine(bindingWords)];
}

/**
 * kubectl's RESOURCE[.GROUP][/SUBRESOURCE]: it splits at the first "/" and then at the first ".",
 * and reads the flag as a comma-separated list, so a resource with a "." in it, or a part with a
 * comma or a double quote, cannot be written.
 */
function resourceArgument(group: string, combined: string): string | undefined {
  const slash = combined.indexOf('/');
  const resource = slash < 0 ? combined : combined.slice(0, slash);
  const subresource = slash < 0 ? '' : combined.slice(slash + 1);
  if (resource === '' || /[.,"]/.test(resource) || /[,"]/.test(group) || /[,"]/.test(subresource)) return undefined;
  return `${resource}${group === '' ? '' : `.${group}`}${subresource === '' ? '' : `/${subresource}`}`;
}
