// Seeded random RBAC states and authorization questions over one small vocabulary, so that rules,
// bindings and questions collide often: wildcards, `*/subresource`, resourceNames, non-resource
// prefixes, ServiceAccount subjects with and without a namespace, bindings to missing roles,
// system:masters, and aggregated ClusterRoles whose rules the controller has or has not written yet.
// Every object is one kube-apiserver accepts (pkg/apis/rbac/validation): a Role's rules name
// resources only, a ClusterRoleBinding refers to a ClusterRole, and its ServiceAccount subjects carry
// a namespace. The group vocabulary includes system:authenticated and system:serviceaccounts, so on
// a real API server the questions also meet its bootstrap bindings.
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from '../../src/api/rbac.ts';
import type { AuthorizationAttributes } from '../../src/ports/authorizer.ts';

export interface RandomRbacState {
  roles: Role[];
  clusterRoles: ClusterRole[];
  roleBindings: RoleBinding[];
  clusterRoleBindings: ClusterRoleBinding[];
}

const namespaces = ['ns1', 'ns2'];
const verbs = ['get', 'list', 'update', 'delete', 'create', '*'];
const apiGroups = ['', 'apps', 'batch', '*'];
const resources = [
  'pods',
  'pods/status',
  'pods/finalizers',
  'deployments',
  'deployments/finalizers',
  'replicasets/finalizers',
  'jobs',
  '*/finalizers',
  '*/status',
  '*',
];
const resourceNames = ['web', 'db', '*'];
const nonResourceURLs = ['/healthz', '/healthz*', '/api/*', '/api', '/metrics', '*'];
const usernames = ['alice', 'bob', 'system:serviceaccount:ns1:builder', 'system:serviceaccount:ns2:default', '*'];
const groups = ['devs', 'ops', 'system:authenticated', 'system:serviceaccounts', 'system:serviceaccounts:ns1'];
const roleNames = ['reader', 'editor', 'finalizer', 'admin'];
const aggregateLabel = 'example.com/aggregate';

export function randomRbac(random: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const some = <T>(items: readonly T[], max: number): T[] => {
    const count = 1 + Math.floor(random() * max);
    return [...new Set(Array.from({ length: count }, () => pick(items)))];
  };
  const chance = (p: number) => random() < p;

  /** A Role's rules never answer a non-resource request, and the API refuses them there. */
  function rule(namespaced: boolean): PolicyRule {
    if (!namespaced && chance(0.15)) return { verbs: some(verbs, 2), nonResourceURLs: some(nonResourceURLs, 2) };
    const made: PolicyRule = { verbs: some(verbs, 2), apiGroups: some(apiGroups, 2), resources: some(resources, 3) };
    if (chance(0.25)) made.resourceNames = some(resourceNames, 2);
    return made;
  }
  const rules = (namespaced: boolean) => Array.from({ length: Math.floor(random() * 3) }, () => rule(namespaced));

  function subject(bindingNamespace: string): Subject {
    const kind = pick(['User', 'Group', 'ServiceAccount', 'ServiceAccount']);
    if (kind === 'User') return { kind, apiGroup: 'rbac.authorization.k8s.io', name: pick(usernames) };
    if (kind === 'Group') return { kind, apiGroup: 'rbac.authorization.k8s.io', name: pick(groups) };
    const account: Subject = { kind, name: pick(['builder', 'default']) };
    // A ServiceAccount subject without a namespace takes the RoleBinding's; a ClusterRoleBinding's must name one.
    if (bindingNamespace === '' || chance(0.5)) account.namespace = pick(namespaces);
    return account;
  }

  function state(): RandomRbacState {
    const roles: Role[] = [];
    const clusterRoles: ClusterRole[] = [];
    for (const name of roleNames) {
      for (const namespace of namespaces) if (chance(0.35)) roles.push({ metadata: { name, namespace }, rules: rules(true) });
      if (!chance(0.6)) continue;
      const role: ClusterRole = { metadata: { name }, rules: rules(false) };
      if (chance(0.3)) role.metadata!.labels = { [aggregateLabel]: 'true' };
      clusterRoles.push(role);
    }
    // An aggregated ClusterRole: written by the controller (its rules are the union) or not yet (none).
    if (chance(0.4)) {
      const sources = clusterRoles.filter((role) => role.metadata?.labels?.[aggregateLabel] === 'true');
      const written = chance(0.5);
      clusterRoles.push({
        metadata: { name: 'aggregated' },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [aggregateLabel]: 'true' } }] },
        rules: written ? sources.flatMap((role) => role.rules ?? []) : [],
      });
    }
    const referencable = [...roleNames, 'aggregated', 'missing'];
    // Bound often where it exists: whether its rules are read as stored is what it is there to show.
    const aggregated = clusterRoles.some((role) => role.aggregationRule !== undefined);
    const target = () => (aggregated && chance(0.3) ? 'aggregated' : pick(referencable));
    const roleBindings: RoleBinding[] = [];
    for (let i = 0, count = Math.floor(random() * 5); i < count; i++) {
      const namespace = pick(namespaces);
      roleBindings.push({
        metadata: { name: `rb-${i}`, namespace },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: pick(['Role', 'ClusterRole']), name: target() },
        subjects: Array.from({ length: 1 + Math.floor(random() * 2) }, () => subject(namespace)),
      });
    }
    const clusterRoleBindings: ClusterRoleBinding[] = [];
    for (let i = 0, count = Math.floor(random() * 4); i < count; i++) {
      clusterRoleBindings.push({
        metadata: { name: `crb-${i}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: target() },
        subjects: Array.from({ length: 1 + Math.floor(random() * 2) }, () => subject('')),
      });
    }
    return { roles, clusterRoles, roleBindings, clusterRoleBindings };
  }

  /**
   * A question near what the state grants, half of the time: a subject of one of its bindings asks
   * for something one of its rules names, in the binding's namespace or another; otherwise anything.
   */
  function question(near?: RandomRbacState): AuthorizationAttributes {
    const bindings = near === undefined ? [] : [...near.roleBindings, ...near.clusterRoleBindings];
    if (bindings.length > 0 && chance(0.5)) return nearQuestion(near!, pick(bindings));
    const user = { username: pick(usernames.filter((name) => name !== '*')), groups: chance(0.7) ? some(groups, 2) : [] };
    if (chance(0.05)) user.groups.push('system:masters');
    if (chance(0.15))
      return {
        user,
        nonResourceAttributes: {
          verb: pick(verbs.filter((v) => v !== '*')),
          path: pick(['/healthz', '/healthz/etcd', '/healthzzz', '/api', '/api/v1', '/apis', '/metrics']),
        },
      };
    // One in five is OwnerReferencesPermissionEnforcement's wildcard probe.
    if (chance(0.2))
      return {
        user,
        resourceAttributes: {
          verb: 'update',
          namespace: '',
          group: '*',
          version: '*',
          resource: '*',
          subresource: 'finalizers',
          name: '*',
        },
      };
    const [resource, subresource = ''] = pick([
      'pods',
      'pods/status',
      'pods/finalizers',
      'deployments',
      'deployments/finalizers',
      'replicasets/finalizers',
      'jobs',
      'secrets',
    ]).split('/') as [string, string?];
    return {
      user,
      resourceAttributes: {
        verb: pick(verbs.filter((v) => v !== '*')),
        namespace: pick([...namespaces, '']),
        group: pick(['', 'apps', 'batch']),
        version: 'v1',
        resource,
        subresource,
        name: pick(['', 'web', 'db']),
      },
    };
  }

  function nearQuestion(state: RandomRbacState, binding: RoleBinding): AuthorizationAttributes {
    const subject = pick(binding.subjects ?? [{ kind: 'User', name: 'nobody' }]);
    const bindingNamespace = binding.metadata?.namespace ?? '';
    const user =
      subject.kind === 'Group'
        ? { username: 'someone', groups: [subject.name] }
        : subject.kind === 'ServiceAccount'
          ? { username: `system:serviceaccount:${subject.namespace || bindingNamespace}:${subject.name}`, groups: [] }
          : { username: subject.name, groups: [] };
    const roles =
      binding.roleRef.kind === 'Role' ? state.roles.filter((role) => role.metadata?.namespace === bindingNamespace) : state.clusterRoles;
    const role = roles.find((candidate) => candidate.metadata?.name === binding.roleRef.name);
    // Near an aggregated ClusterRole is what its sources grant, whether the controller has written it yet or not.
    const granted =
      role?.aggregationRule === undefined
        ? (role?.rules ?? [])
        : state.clusterRoles
            .filter((source) => source.metadata?.labels?.[aggregateLabel] === 'true')
            .flatMap((source) => source.rules ?? []);
    const rule =
      granted.length > 0
        ? pick(granted)
        : (rules(binding.roleRef.kind === 'Role')[0] ?? { verbs: ['get'], apiGroups: [''], resources: ['pods'] });
    const concrete = (values: string[] | undefined, instead: readonly string[]) => {
      const value = values === undefined || values.length === 0 ? pick(instead) : pick(values);
      return value === '*' ? pick(instead) : value;
    };
    if (rule.nonResourceURLs !== undefined) {
      const path = concrete(rule.nonResourceURLs, ['/healthz', '/api/v1']).replace(/\*+$/, chance(0.5) ? 'x' : '');
      return { user, nonResourceAttributes: { verb: concrete(rule.verbs, ['get', 'post']), path } };
    }
    const [resource, subresource = ''] = concrete(rule.resources, ['pods', 'jobs'])
      .replace(/^\*\//, `${pick(['pods', 'jobs'])}/`)
      .split('/') as [string, string?];
    return {
      user,
      resourceAttributes: {
        verb: concrete(rule.verbs, ['get', 'patch']),
        namespace: chance(0.75) ? bindingNamespace || pick(namespaces) : pick([...namespaces, '']),
        group: concrete(rule.apiGroups, ['', 'apps']),
        version: 'v1',
        resource,
        subresource,
        name:
          rule.resourceNames === undefined || rule.resourceNames.length === 0
            ? pick(['', 'web'])
            : concrete(rule.resourceNames, ['web', 'other']),
      },
    };
  }

  return { state, question };
}
