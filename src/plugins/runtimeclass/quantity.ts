// Resource quantities compared by value, as apimachinery's semantic equality does (Quantity.Cmp):
// "1" and "1000m" are the same CPU, so a pod overhead written either way matches its RuntimeClass.

const suffixPattern = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;

const decimalExponents: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binaryExponents: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

const nanosPerUnit = 10n ** 9n;

/**
 * The quantity's exact value in nano-units, or undefined when it is not a quantity. Like
 * resource.ParseQuantity, a non-zero value finer than 1n rounds away from zero to the next nano.
 * Numbers are accepted because a YAML cluster-state file may write `cpu: 1`.
 */
export function quantityNanos(value: unknown): bigint | undefined {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string') return undefined;
  const match = suffixPattern.exec(text);
  if (match === null) return undefined;
  const [, sign = '', number = '', exponentSuffix, unitSuffix = ''] = match;
  const [whole = '', fraction = ''] = number.split('.');
  let numerator = BigInt((whole || '0') + fraction) * nanosPerUnit;
  let denominator = 10n ** BigInt(fraction.length);
  const exponent = exponentSuffix !== undefined ? Number(exponentSuffix.slice(1)) : decimalExponents[unitSuffix];
  if (exponent !== undefined) {
    if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
    else denominator *= 10n ** BigInt(-exponent);
  } else {
    numerator *= 2n ** BigInt(binaryExponents[unitSuffix]!);
  }
  let nanos = numerator / denominator;
  if (numerator % denominator !== 0n) nanos += 1n;
  return sign === '-' ? -nanos : nanos;
}

/** Quantity.Cmp(other) == 0; unparseable values (never seen past the API server) compare as text. */
export function quantitiesEqual(a: unknown, b: unknown): boolean {
  const x = quantityNanos(a);
  const y = quantityNanos(b);
  if (x === undefined || y === undefined) return a === b;
  return x === y;
}

export type ResourceList = Record<string, unknown>;

/** apiequality.Semantic.DeepEqual over two ResourceLists: nil and empty are the same list. */
export function resourceListsEqual(a: ResourceList | null | undefined, b: ResourceList | null | undefined): boolean {
  const left = Object.keys(a ?? {});
  const right = Object.keys(b ?? {});
  if (left.length !== right.length) return false;
  return left.every((name) => Object.hasOwn(b ?? {}, name) && quantitiesEqual(a![name], b![name]));
}

export function resourceListLength(list: ResourceList | null | undefined): number {
  return Object.keys(list ?? {}).length;
}
