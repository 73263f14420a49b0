// apimachinery's labels.ConvertSelectorToLabelsMap and labels.Conflicts: the "k1=v1,k2=v2" form that
// PodNodeSelector reads from namespace annotations and its configuration, with upstream's errors.
import { goQuote } from './go-format.ts';
import { isLabelKey, isLabelValue } from './label-validation.ts';

/** A label set as upstream's labels.Set: keys map to values (a Map keeps insertion order). */
export type LabelSet = Map<string, string>;

export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

/**
 * "infra = false, env=dev" → {infra: false, env: dev}; "" → {}. Each comma-separated term must be
 * exactly one "=" with a valid label key and value around it (whitespace trimmed); a later term
 * overwrites an earlier one with the same key. Throws a SelectorError with upstream's message.
 */
export function convertSelectorToLabelsMap(selector: string): LabelSet {
  const labels: LabelSet = new Map();
  if (selector.length === 0) return labels;
  for (const term of selector.split(',')) {
    const parts = term.split('=');
    // fmt's %s of a []string: "[a b c]".
    if (parts.length !== 2) throw new SelectorError(`invalid selector: [${parts.join(' ')}]`);
    const key = trimSpace(parts[0]!);
    const keyErrors = isLabelKey(key);
    // field.Invalid with a nil path prints the field as "<nil>".
    if (keyErrors.length > 0) throw new SelectorError(`<nil>: Invalid value: ${goQuote(key)}: ${keyErrors.join('; ')}`);
    const value = trimSpace(parts[1]!);
    const valueErrors = isLabelValue(value);
    if (valueErrors.length > 0) throw new SelectorError(`[${key}]: Invalid value: ${goQuote(value)}: ${valueErrors.join('; ')}`);
    labels.set(key, value);
  }
  return labels;
}

/** labels.Conflicts: some key is in both sets with different values. */
export function labelsConflict(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  const [small, big] = b.size < a.size ? [b, a] : [a, b];
  for (const [key, value] of small) {
    const other = big.get(key);
    if (other !== undefined && other !== value) return true;
  }
  return false;
}

/** Go's unicode.IsSpace: JavaScript's \s without U+FEFF, plus U+0085. */
const goSpace = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

/** strings.TrimSpace, by index (a trailing-whitespace regex would be quadratic on long runs). */
function trimSpace(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && goSpace.test(value[start]!)) start++;
  while (end > start && goSpace.test(value[end - 1]!)) end--;
  return value.slice(start, end);
}
