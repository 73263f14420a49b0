// metav1.LabelSelector matching, for ClusterRole aggregationRule.clusterRoleSelectors
// (metav1.LabelSelectorAsSelector): an empty selector selects everything; an invalid one nothing.

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: unknown[];
}

function requirementMatches(requirement: LabelSelectorRequirement, labels: Record<string, string>): boolean | undefined {
  const has = Object.hasOwn(labels, requirement.key);
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return values.length === 0 ? undefined : has && values.includes(labels[requirement.key]!);
    case 'NotIn':
      return values.length === 0 ? undefined : !has || !values.includes(labels[requirement.key]!);
    case 'Exists':
      return values.length > 0 ? undefined : has;
    case 'DoesNotExist':
      return values.length > 0 ? undefined : !has;
    default:
      return undefined;
  }
}

/** true/false, or undefined when the selector is invalid (upstream: an error, nothing selected). */
export function labelSelectorMatches(selector: LabelSelector, labels: Record<string, string> = {}): boolean | undefined {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const expression of selector.matchExpressions ?? []) {
    const requirement = expression as LabelSelectorRequirement;
    if (typeof requirement?.key !== 'string' || typeof requirement.operator !== 'string') return undefined;
    const result = requirementMatches(requirement, labels);
    if (result !== true) return result;
  }
  return true;
}
