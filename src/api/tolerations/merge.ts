// Upstream's MergeTolerations and VerifyAgainstWhitelist (pkg/util/tolerations), with the same
// results in the same order, in linear time: each pairwise scan upstream makes is one question to
// a SupersetIndex.
import type { Toleration } from '../core.ts';
import { SupersetIndex } from './superset-index.ts';
import { fieldsOf, identityOf } from './toleration.ts';
import { uncoveredTolerations } from './uncovered.ts';

/**
 * first ++ second without redundant entries: a toleration is dropped when one already kept is a
 * superset of it, or when a later, different one is; of equal tolerations the first is kept.
 * The kept objects are the given ones, in their order.
 */
export function mergeTolerations<T extends Toleration>(first: readonly T[], second: readonly T[]): T[] {
  const all = [...first, ...second];
  const fields = all.map(fieldsOf);
  const identities = fields.map(identityOf);

  // Scanning from the end, each toleration asks the ones after it.
  const coveredLater: boolean[] = new Array(all.length);
  const later = new SupersetIndex();
  for (let i = all.length - 1; i >= 0; i--) {
    coveredLater[i] = later.hasOtherSupersetOf(fields[i]!, identities[i]!);
    later.add(fields[i]!, identities[i]!);
  }

  const merged: T[] = [];
  const kept = new SupersetIndex();
  for (let i = 0; i < all.length; i++) {
    if (coveredLater[i] || kept.hasSupersetOf(fields[i]!, identities[i]!)) continue;
    merged.push(all[i]!);
    kept.add(fields[i]!, identities[i]!);
  }
  return merged;
}

/** Every toleration has a superset in the whitelist; true when either list is empty. */
export function verifyAgainstWhitelist(tolerations: readonly Toleration[], whitelist: readonly Toleration[]): boolean {
  return whitelist.length === 0 || uncoveredTolerations(tolerations, whitelist, 0).total === 0;
}
