// ClusterRole aggregation, resolved once at load. In a cluster the clusterrole-aggregation
// controller fills an aggregated role's rules from the ClusterRoles its selectors match; the
// authorizer itself only reads `rules`. A cluster-state file may come from source manifests
// (aggregated roles with no rules yet) or from a live export (rules already filled in, sources
// possibly missing), so we take the union: the rules as written, then the controller's result
// (matched roles by name, skipping itself, de-duplicated), repeated until nothing changes so
// aggregation of aggregated roles settles as the controller's repeated passes would.
import type { ClusterRole, PolicyRule } from '../../../api/rbac.ts';
import { labelSelectorMatches } from './label-selector.ts';

/** Rule identity as equality.Semantic.DeepEqual sees it: absent and empty lists are equal. */
export function ruleKey(rule: PolicyRule): string {
  return JSON.stringify([
    rule.verbs ?? [],
    rule.apiGroups ?? [],
    rule.resources ?? [],
    rule.resourceNames ?? [],
    rule.nonResourceURLs ?? [],
  ]);
}

export interface AggregationResult {
  clusterRoles: ClusterRole[];
  /** Per aggregated role: the rules the controller would have dropped (written, not aggregated). */
  handWrittenRules: Map<string, PolicyRule[]>;
}

function aggregatedRules(role: ClusterRole, byName: ReadonlyMap<string, ClusterRole>): PolicyRule[] {
  const rules: PolicyRule[] = [];
  const seen = new Set<string>();
  const sorted = [...byName.values()].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  for (const selector of role.aggregationRule?.clusterRoleSelectors ?? []) {
    for (const candidate of sorted) {
      if (candidate.metadata?.name === role.metadata?.name) continue;
      if (labelSelectorMatches(selector, candidate.metadata?.labels) !== true) continue;
      for (const rule of candidate.rules ?? []) {
        const key = ruleKey(rule);
        if (!seen.has(key)) {
          seen.add(key);
          rules.push(rule);
        }
      }
    }
  }
  return rules;
}

export function resolveAggregation(clusterRoles: readonly ClusterRole[]): AggregationResult {
  const byName = new Map<string, ClusterRole>();
  for (const role of clusterRoles) byName.set(role.metadata?.name ?? '', { ...role, rules: [...(role.rules ?? [])] });
  const handWrittenRules = new Map<string, PolicyRule[]>();
  const aggregated = [...byName.values()].filter((role) => role.aggregationRule);
  for (const role of aggregated) {
    const fromSelectors = new Set(aggregatedRules(role, byName).map(ruleKey));
    const extra = (role.rules ?? []).filter((rule) => !fromSelectors.has(ruleKey(rule)));
    if (fromSelectors.size > 0 && extra.length > 0) handWrittenRules.set(role.metadata?.name ?? '', extra);
  }
  // Each pass can only add rules, and there are finitely many, so this terminates.
  for (let changed = true; changed; ) {
    changed = false;
    for (const role of aggregated) {
      const current = role.rules ?? [];
      const have = new Set(current.map(ruleKey));
      const added = aggregatedRules(role, byName).filter((rule) => !have.has(ruleKey(rule)));
      if (added.length > 0) {
        role.rules = [...current, ...added];
        changed = true;
      }
    }
  }
  return { clusterRoles: [...byName.values()], handWrittenRules };
}
