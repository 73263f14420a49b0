// Which tolerations a whitelist does not cover (upstream only answers whether all are): for the
// explanation of a PodTolerationRestriction denial. Linear, like VerifyAgainstWhitelist.
import type { Toleration } from '../core.ts';
import { SupersetIndex } from './superset-index.ts';
import { fieldsOf } from './toleration.ts';

/** The first `max` tolerations no whitelist entry is a superset of, and how many there are in all. */
export function uncoveredTolerations(
  tolerations: readonly Toleration[],
  whitelist: readonly Toleration[],
  max: number,
): { first: Toleration[]; total: number } {
  const allowed = new SupersetIndex();
  for (const entry of whitelist) allowed.add(fieldsOf(entry));
  const first: Toleration[] = [];
  let total = 0;
  for (const toleration of tolerations) {
    if (allowed.hasSupersetOf(fieldsOf(toleration))) continue;
    total += 1;
    if (first.length < max) first.push(toleration);
  }
  return { first, total };
}
