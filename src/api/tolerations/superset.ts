// Upstream's isSuperset (pkg/util/tolerations): whether one toleration tolerates every taint another
// does. The pairwise form, kept as the definition the indexed form (superset-index.ts) is tested against.
import { identityOf, TaintEffect, type TolerationFields, TolerationOperator } from './toleration.ts';

export function isSuperset(broad: TolerationFields, narrow: TolerationFields): boolean {
  if (identityOf(broad) === identityOf(narrow)) return true;
  // An empty key with Exists matches every key and value.
  if (narrow.key !== broad.key && (broad.key !== '' || broad.operator !== TolerationOperator.Exists)) return false;
  // An empty effect matches every effect.
  if (narrow.effect !== broad.effect && broad.effect !== '') return false;
  if (broad.effect === TaintEffect.NoExecute && broad.seconds !== undefined) {
    if (narrow.seconds === undefined || narrow.seconds > broad.seconds) return false;
  }
  switch (broad.operator) {
    case TolerationOperator.Equal:
    case '': // an empty operator means Equal
      return narrow.operator === TolerationOperator.Equal && narrow.value === broad.value;
    case TolerationOperator.Exists:
      return true;
    default:
      return false;
  }
}
