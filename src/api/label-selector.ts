// metav1.LabelSelector, checked once and then matched (apimachinery's ValidateLabelSelector and
// LabelSelectorAsSelector): every matchLabels pair and every matchExpressions requirement must
// hold. Decoding is where a bad selector is refused, so matching never meets one.

import { isPlainObject } from '../util/plain-object.ts';
import { goQuote } from './go-format.ts';
import { isLabelKey, isLabelValue } from './label-validation.ts';

export const SelectorOperator = {
  In: 'In',
  NotIn: 'NotIn',
  Exists: 'Exists',
  DoesNotExist: 'DoesNotExist',
} as const;
export type SelectorOperator = (typeof SelectorOperator)[keyof typeof SelectorOperator];
const operators: readonly string[] = Object.values(SelectorOperator);

export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  readonly values: readonly string[];
}

export interface LabelSelector {
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly matchExpressions: readonly LabelSelectorRequirement[];
}

/** A field path and what is wrong there, for the decoder's error. */
export interface SelectorProblem {
  readonly field: string;
  readonly detail: string;
}

/**
 * A LabelSelector from decoded YAML/JSON, or the first problem with it (field relative to the
 * selector: "matchExpressions[0].values"). Strict: unknown fields are problems too.
 */
export function decodeLabelSelector(value: unknown): LabelSelector | SelectorProblem {
  if (!isPlainObject(value)) return { field: '', detail: 'expected a label selector (matchLabels, matchExpressions)' };
  for (const key of Object.keys(value)) {
    if (key !== 'matchLabels' && key !== 'matchExpressions') return { field: key, detail: 'unknown field' };
  }
  const matchLabels: Record<string, string> = {};
  const rawLabels = value.matchLabels ?? {};
  if (!isPlainObject(rawLabels)) return { field: 'matchLabels', detail: 'expected a map of label keys to values' };
  for (const [key, labelValue] of Object.entries(rawLabels)) {
    const field = `matchLabels[${JSON.stringify(key)}]`;
    const keyErrors = isLabelKey(key);
    if (keyErrors.length > 0) return { field, detail: `Invalid value: ${goQuote(key)}: ${keyErrors.join('; ')}` };
    if (typeof labelValue !== 'string') return { field, detail: 'expected a string' };
    const valueErrors = isLabelValue(labelValue);
    if (valueErrors.length > 0) return { field, detail: `Invalid value: ${goQuote(labelValue)}: ${valueErrors.join('; ')}` };
    matchLabels[key] = labelValue;
  }
  const rawExpressions = value.matchExpressions ?? [];
  if (!Array.isArray(rawExpressions)) return { field: 'matchExpressions', detail: 'expected a list' };
  const matchExpressions: LabelSelectorRequirement[] = [];
  for (const [index, expression] of rawExpressions.entries()) {
    const requirement = decodeRequirement(expression, `matchExpressions[${index}]`);
    if ('detail' in requirement) return requirement;
    matchExpressions.push(requirement);
  }
  return { matchLabels, matchExpressions };
}

function decodeRequirement(value: unknown, at: string): LabelSelectorRequirement | SelectorProblem {
  if (!isPlainObject(value)) return { field: at, detail: 'expected a requirement (key, operator, values)' };
  for (const key of Object.keys(value)) {
    if (!['key', 'operator', 'values'].includes(key)) return { field: `${at}.${key}`, detail: 'unknown field' };
  }
  const { key, operator } = value;
  if (typeof key !== 'string') return { field: `${at}.key`, detail: 'Required value: expected a label key' };
  const keyErrors = isLabelKey(key);
  if (keyErrors.length > 0) return { field: `${at}.key`, detail: `Invalid value: ${goQuote(key)}: ${keyErrors.join('; ')}` };
  if (typeof operator !== 'string' || !operators.includes(operator))
    return {
      field: `${at}.operator`,
      detail: `Unsupported value: ${goQuote(String(operator ?? ''))}: supported values: ${operators.map(goQuote).join(', ')}`,
    };
  const rawValues = value.values ?? [];
  if (!Array.isArray(rawValues)) return { field: `${at}.values`, detail: 'expected a list of strings' };
  const values: string[] = [];
  for (const [index, item] of rawValues.entries()) {
    if (typeof item !== 'string') return { field: `${at}.values[${index}]`, detail: 'expected a string' };
    const errors = isLabelValue(item);
    if (errors.length > 0) return { field: `${at}.values[${index}]`, detail: `Invalid value: ${goQuote(item)}: ${errors.join('; ')}` };
    values.push(item);
  }
  const takesValues = operator === SelectorOperator.In || operator === SelectorOperator.NotIn;
  if (takesValues && values.length === 0)
    return { field: `${at}.values`, detail: "Required value: must be specified when `operator` is 'In' or 'NotIn'" };
  if (!takesValues && values.length > 0)
    return { field: `${at}.values`, detail: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'" };
  return { key, operator: operator as SelectorOperator, values };
}

/** Whether the labels satisfy every part of the selector (an empty selector selects everything). */
export function labelSelectorMatches(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels)) {
    if (!Object.hasOwn(labels, key) || labels[key] !== value) return false;
  }
  return selector.matchExpressions.every((requirement) => requirementMatches(requirement, labels));
}

function requirementMatches({ key, operator, values }: LabelSelectorRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, key);
  switch (operator) {
    case SelectorOperator.In:
      return has && values.includes(labels[key]!);
    case SelectorOperator.NotIn:
      return !has || !values.includes(labels[key]!);
    case SelectorOperator.Exists:
      return has;
    case SelectorOperator.DoesNotExist:
      return !has;
  }
}

/** labels.Selector's String form: "team=platform,env in (dev,test),!legacy". */
export function formatLabelSelector(selector: LabelSelector): string {
  const parts = Object.entries(selector.matchLabels).map(([key, value]) => `${key}=${value}`);
  for (const { key, operator, values } of selector.matchExpressions) {
    if (operator === SelectorOperator.In) parts.push(`${key} in (${values.join(',')})`);
    else if (operator === SelectorOperator.NotIn) parts.push(`${key} notin (${values.join(',')})`);
    else if (operator === SelectorOperator.Exists) parts.push(key);
    else parts.push(`!${key}`);
  }
  return parts.join(',');
}

/** True when the selector has no requirement at all, and so selects everything. */
export function selectsEverything(selector: LabelSelector): boolean {
  return Object.keys(selector.matchLabels).length === 0 && selector.matchExpressions.length === 0;
}
