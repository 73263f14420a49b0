// metav1.LabelSelector matching, as webhook namespaceSelector and objectSelector use it: matchLabels
// and matchExpressions are ANDed, an empty (or absent) selector matches everything, and NotIn /
// DoesNotExist hold for a label that is not there.
export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export function selectorMatches(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  return (selector?.matchExpressions ?? []).every((requirement) => requirementMatches(requirement, labels));
}

function requirementMatches(requirement: LabelSelectorRequirement, labels: Record<string, string>): boolean {
  const present = Object.hasOwn(labels, requirement.key);
  const value = labels[requirement.key];
  switch (requirement.operator) {
    case 'In':
      return present && (requirement.values ?? []).includes(value!);
    case 'NotIn':
      return !present || !(requirement.values ?? []).includes(value!);
    case 'Exists':
      return present;
    case 'DoesNotExist':
      return !present;
  }
}
