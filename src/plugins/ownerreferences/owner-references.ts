// Reading and comparing ownerReferences the way upstream does through meta.Accessor: absent, null
// and malformed values all mean "no references", and two references are equal when their fields
// are (apiequality.Semantic.DeepEqual), so a nil blockOwnerDeletion differs from an explicit false.
import type { KubeObject, OwnerReference } from '../../api/types.ts';

/** An owner reference with every field normalised: strings default to "", flags to undefined (Go nil). */
export interface NormalisedOwnerReference extends OwnerReference {
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/**
 * The object's ownerReferences, or undefined when there is no object to read them from (upstream's
 * meta.Accessor failure, which makes the plugin treat it as "not changing owner references").
 */
export function ownerReferencesOf(object: KubeObject | undefined): NormalisedOwnerReference[] | undefined {
  if (!isRecord(object)) return undefined;
  const metadata: unknown = object.metadata;
  if (!isRecord(metadata)) return [];
  const refs: unknown = metadata.ownerReferences;
  if (!Array.isArray(refs)) return [];
  // Unstructured's GetOwnerReferences gives up on the whole list when one entry is not an object.
  if (!refs.every(isRecord)) return [];
  return refs.map(normalise);
}

function normalise(ref: Record<string, unknown>): NormalisedOwnerReference {
  const out: NormalisedOwnerReference = {
    apiVersion: stringField(ref.apiVersion),
    kind: stringField(ref.kind),
    name: stringField(ref.name),
    uid: stringField(ref.uid),
  };
  if (typeof ref.controller === 'boolean') out.controller = ref.controller;
  if (typeof ref.blockOwnerDeletion === 'boolean') out.blockOwnerDeletion = ref.blockOwnerDeletion;
  return out;
}

function stringField(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function sameOwnerReference(a: NormalisedOwnerReference, b: NormalisedOwnerReference): boolean {
  return (
    a.apiVersion === b.apiVersion &&
    a.kind === b.kind &&
    a.name === b.name &&
    a.uid === b.uid &&
    a.controller === b.controller &&
    a.blockOwnerDeletion === b.blockOwnerDeletion
  );
}

/**
 * Both objects' references, read once per request. `old` is undefined when there is an old object
 * to read them from and it is not an object; `created` when there is no old object at all.
 */
export interface ReferencePair {
  readonly new: NormalisedOwnerReference[] | undefined;
  readonly old: NormalisedOwnerReference[] | undefined;
  readonly created: boolean;
}

export function readReferences(object: KubeObject | undefined, oldObject: KubeObject | undefined): ReferencePair {
  const created = oldObject === undefined || oldObject === null;
  return { new: ownerReferencesOf(object), old: created ? undefined : ownerReferencesOf(oldObject), created };
}

/** upstream isChangingOwnerReference: positional comparison, an absent old object means "created". */
export function isChangingOwnerReferences(refs: ReferencePair): boolean {
  const { new: newRefs, old: oldRefs } = refs;
  if (newRefs === undefined) return false;
  if (refs.created) return newRefs.length > 0;
  if (oldRefs === undefined) return false;
  if (oldRefs.length !== newRefs.length) return true;
  return oldRefs.some((ref, i) => !sameOwnerReference(ref, newRefs[i]!));
}

/**
 * upstream newBlockingOwnerDeletionRefs: references that block owner deletion and either are new
 * (by uid) or did not block before (nil or false). Only these need the owner-side check.
 */
export function newlyBlockingReferences(refs: ReferencePair): NormalisedOwnerReference[] {
  const { new: newRefs, old: oldRefs } = refs;
  if (newRefs === undefined) return [];
  const blocking = newRefs.filter((ref) => ref.blockOwnerDeletion === true);
  if (blocking.length === 0) return [];
  if (refs.created || oldRefs === undefined) return blocking;
  // Later duplicates of a uid win, as in upstream's map index.
  const oldByUid = new Map<string, NormalisedOwnerReference>();
  for (const ref of oldRefs) oldByUid.set(ref.uid, ref);
  return blocking.filter((ref) => {
    const old = oldByUid.get(ref.uid);
    return old === undefined || old.blockOwnerDeletion !== true;
  });
}
