// Toleration merging as upstream's pkg/util/tolerations does it: the union of two lists where a
// toleration already covered by a broader one is dropped, so a RuntimeClass can add tolerations
// without piling up duplicates of what the pod already tolerates.
import type { Toleration } from '../../api/core.ts';

const opEqual = 'Equal';
const opExists = 'Exists';
const effectNoExecute = 'NoExecute';

/** apiequality.Semantic.DeepEqual on two tolerations: absent and empty fields are the same. */
export function tolerationsEqual(a: Toleration, b: Toleration): boolean {
  return (
    (a.key ?? '') === (b.key ?? '') &&
    (a.operator ?? '') === (b.operator ?? '') &&
    (a.value ?? '') === (b.value ?? '') &&
    (a.effect ?? '') === (b.effect ?? '') &&
    (a.tolerationSeconds ?? undefined) === (b.tolerationSeconds ?? undefined)
  );
}

/** Whether `broad` tolerates every taint that `narrow` tolerates. */
export function isSuperset(broad: Toleration, narrow: Toleration): boolean {
  if (tolerationsEqual(broad, narrow)) return true;
  const broadKey = broad.key ?? '';
  const broadOperator = broad.operator ?? '';
  const broadEffect = broad.effect ?? '';
  // An empty key with Exists matches every key and value.
  if ((narrow.key ?? '') !== broadKey && (broadKey !== '' || broadOperator !== opExists)) return false;
  // An empty effect matches every effect.
  if ((narrow.effect ?? '') !== broadEffect && broadEffect !== '') return false;
  if (broadEffect === effectNoExecute && broad.tolerationSeconds != null) {
    if (narrow.tolerationSeconds == null || narrow.tolerationSeconds > broad.tolerationSeconds) return false;
  }
  switch (broadOperator) {
    case opEqual:
    case '': // an empty operator means Equal
      return narrow.operator === opEqual && (narrow.value ?? '') === (broad.value ?? '');
    case opExists:
      return true;
    default:
      return false;
  }
}

/**
 * first ++ second without redundant entries: a toleration is dropped when one already kept covers
 * it, or when a later, different one does; of equal tolerations the first is kept.
 */
export function mergeTolerations(first: readonly Toleration[], second: readonly Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  all.forEach((toleration, index) => {
    if (merged.some((kept) => isSuperset(kept, toleration))) return;
    const coveredLater = all.slice(index + 1).some((later) => !tolerationsEqual(toleration, later) && isSuperset(later, toleration));
    if (!coveredLater) merged.push(toleration);
  });
  return merged;
}
