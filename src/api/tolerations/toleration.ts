// A toleration as upstream's Go code compares it: absent and null fields are the zero value ("" or
// no tolerationSeconds), so {} and {"key": null} are the same toleration.
import type { Toleration } from '../core.ts';

export const TolerationOperator = { Equal: 'Equal', Exists: 'Exists' } as const;
export const TaintEffect = { NoSchedule: 'NoSchedule', PreferNoSchedule: 'PreferNoSchedule', NoExecute: 'NoExecute' } as const;

export interface TolerationFields {
  readonly key: string;
  readonly operator: string;
  readonly value: string;
  readonly effect: string;
  readonly seconds: number | undefined;
}

export function fieldsOf(toleration: Toleration): TolerationFields {
  return {
    key: toleration.key ?? '',
    operator: toleration.operator ?? '',
    value: toleration.value ?? '',
    effect: toleration.effect ?? '',
    seconds: toleration.tolerationSeconds ?? undefined,
  };
}

/** A string equal for two tolerations exactly when apiequality.Semantic.DeepEqual says they are equal. */
export function identityOf(fields: TolerationFields): string {
  return `${compositeKey(fields.key, fields.operator, fields.value, fields.effect)}${fields.seconds ?? ''}`;
}

/**
 * One string for several: each part prefixed by its length, so no two lists of parts give the same
 * key whatever characters they hold (cheaper than JSON, and a Map key is what it is for).
 */
export function compositeKey(...parts: string[]): string {
  let key = '';
  for (const part of parts) key += `${part.length}:${part}`;
  return key;
}

/** The toleration as Go's json.Marshal writes a core/v1 Toleration: empty fields omitted. */
export function tolerationJson(fields: TolerationFields): Toleration {
  const toleration: Toleration = {};
  if (fields.key !== '') toleration.key = fields.key;
  if (fields.operator !== '') toleration.operator = fields.operator;
  if (fields.value !== '') toleration.value = fields.value;
  if (fields.effect !== '') toleration.effect = fields.effect;
  if (fields.seconds !== undefined) toleration.tolerationSeconds = fields.seconds;
  return toleration;
}
