// authorization.authorizer in the Helm chart, rendered by the real helm: the default asks
// SubjectAccessReview and may read no RBAC object; rbac-mirror passes --authorizer=rbac-mirror (which
// the server's own flag parser accepts) and adds list/watch on exactly the four RBAC resources, and
// only while OwnerReferencesPermissionEnforcement, the plugin that asks, is enabled.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addServeOptions, parseServeConfig, type RawServeOptions } from '../../src/config/serve-config.ts';
import { defaultEnabledPlugins, orderedPlugins } from '../../src/plugins/index.ts';
import { type ChartInput, type KubeObject, only, renderChart, runHelm } from './helm.ts';
import { validateKubernetesObject } from './kube-schema.ts';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

const render = (input: ChartInput = {}) => {
  const objects = renderChart(input);
  const container = (only(objects, 'Deployment') as KubeObject & { spec: { template: { spec: { containers: { args: string[] }[] } } } })
    .spec.template.spec.containers[0]!;
  const roles = objects.filter((o) => o.kind === 'ClusterRole') as Array<KubeObject & { rules: Rule[] }>;
  return { objects, args: container.args, rules: roles.flatMap((role) => role.rules) };
};
const rbacReads = (rules: Rule[]) => rules.filter((rule) => rule.apiGroups.includes('rbac.authorization.k8s.io'));
const mirror = { authorization: { authorizer: 'rbac-mirror' } };

describe('chart: authorization.authorizer', () => {
  it('defaults to sar: no --authorizer flag, no RBAC object readable', () => {
    const { args, rules } = render();
    expect(args.some((arg) => arg.startsWith('--authorizer'))).toBe(false);
    expect(rbacReads(rules)).toEqual([]);
    expect(rules).toContainEqual({ apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] });
  });

  it('rbac-mirror: the flag, and list/watch on the four RBAC resources (no get, no write, nothing else)', () => {
    const { objects, args, rules } = render({ values: mirror });
    expect(args).toContain('--authorizer=rbac-mirror');
    expect(rbacReads(rules)).toEqual([
      {
        apiGroups: ['rbac.authorization.k8s.io'],
        resources: ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'],
        verbs: ['list', 'watch'],
      },
    ]);
    // SubjectAccessReview stays: everything the mirror does not allow is still asked.
    expect(rules).toContainEqual({ apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] });
    validateKubernetesObject(only(objects, 'ClusterRole'));
    validateKubernetesObject(only(objects, 'Deployment'));
  });

  it('the server accepts the rendered flags and runs the mirror', () => {
    const { args } = render({ values: mirror });
    const serve = addServeOptions(new Command('serve')).exitOverride().allowExcessArguments(false);
    serve.parse(args, { from: 'user' });
    expect(parseServeConfig(serve.opts<RawServeOptions>(), orderedPlugins, defaultEnabledPlugins).authorizer).toBe('rbac-mirror');
  });

  it('rbac-mirror without OwnerReferencesPermissionEnforcement grants no RBAC reads: nothing would ask', () => {
    const { rules } = render({
      values: { ...mirror, plugins: { OwnerReferencesPermissionEnforcement: { enabled: false, mode: 'enforce' } } },
    });
    expect(rbacReads(rules)).toEqual([]);
  });

  it('refuses any other value, naming the allowed ones', () => {
    const result = runHelm('template', { values: { authorization: { authorizer: 'webhook' } } });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("/authorization/authorizer': value must be one of 'sar', 'rbac-mirror'");
  });

  it('helm lint passes in both modes', () => {
    for (const values of [{}, mirror]) {
      const result = runHelm('lint', { values });
      expect(result.stdout + result.stderr).not.toMatch(/\[(ERROR|WARNING)\]/);
      expect(result.status).toBe(0);
    }
  });
});
