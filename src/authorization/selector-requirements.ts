// How kube-apiserver turns a SubjectAccessReview's selector requirements into authorizer input
// (pkg/registry/authorization/util: labelSelectorAsSelector, fieldSelectorAsSelector). A
// requirement it cannot use is dropped, which only broadens the check, and the SAR's
// evaluationError says so. rawSelector parsing (labels.Parse / fields.ParseSelector) is not
// ported: no authorizer we embed reads selectors, so only that status note would differ.

import { goQuote } from '../api/go-format.ts';
import type { SelectorAttributes, SelectorRequirement } from '../ports/authorizer.ts';

export interface SelectorConversion {
  usable: SelectorRequirement[];
  errors: string[];
}

const labelOperators = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/** labelSelectorAsSelector, for requirements that already passed validation. */
export function convertLabelRequirements(requirements: readonly SelectorRequirement[]): SelectorConversion {
  const result: SelectorConversion = { usable: [], errors: [] };
  for (const requirement of requirements) {
    if (!labelOperators.has(requirement.operator))
      result.errors.push(`${goQuote(requirement.operator)} is not a valid label selector operator`);
    else result.usable.push(requirement);
  }
  return result;
}

/** fieldSelectorAsSelector: one value only, In/NotIn only. */
export function convertFieldRequirements(requirements: readonly SelectorRequirement[]): SelectorConversion {
  const result: SelectorConversion = { usable: [], errors: [] };
  for (const requirement of requirements) {
    const values = requirement.values ?? [];
    if (values.length > 1) {
      result.errors.push('fieldSelectors do not yet support multiple values');
      continue;
    }
    switch (requirement.operator) {
      case 'In':
      case 'NotIn':
        if (values.length !== 1)
          result.errors.push(`fieldSelectors ${requirement.operator === 'In' ? 'in' : 'not in'} must have one value`);
        else result.usable.push(requirement);
        break;
      case 'Exists':
      case 'DoesNotExist':
        result.errors.push(`fieldSelectors do not yet support ${requirement.operator}`);
        break;
      default:
        result.errors.push(`${goQuote(requirement.operator)} is not a valid field selector operator`);
    }
  }
  return result;
}

function note(
  kind: 'fieldSelector' | 'labelSelector',
  selector: SelectorAttributes | undefined,
  convert: typeof convertFieldRequirements,
): string[] {
  const requirements = selector?.requirements ?? [];
  if (requirements.length === 0) return [];
  const { usable, errors } = convert(requirements);
  if (errors.length === 0) return [];
  const how = usable.length > 0 ? 'partially ignored' : 'ignored';
  return [`spec.resourceAttributes.${kind} ${how} due to parse error`];
}

/** The selector half of BuildEvaluationError. */
export function selectorEvaluationNotes(
  fieldSelector: SelectorAttributes | undefined,
  labelSelector: SelectorAttributes | undefined,
): string[] {
  return [
    ...note('fieldSelector', fieldSelector, convertFieldRequirements),
    ...note('labelSelector', labelSelector, convertLabelRequirements),
  ];
}
