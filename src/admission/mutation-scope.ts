// Where mutating plugins may write, so /mutate copies and diffs only that much of the object.
// Copying a whole 3 MiB object and diffing it against the request's took a second and a hundred
// MiB per request; a pod's mutating plugins touch its containers, volumes and a few spec and
// metadata fields. Each plugin lists the paths it writes; the union is copied (the objects along
// the way shallowly, each path's own value deeply) and everything else is shared with the request's
// object. The patch is fast-json-patch's compare over views of the two objects in which shared,
// untouched values are replaced by one placeholder: the same operations, in the same order, as
// comparing the whole objects, but the work is that of the paths.
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import { cloneJson } from '../util/clone-json.ts';
import { isPlainObject } from '../util/plain-object.ts';

/** Object keys from the root to a value a plugin may change (in place or by assignment). */
export type MutationPath = readonly string[];

interface PathNode {
  /** The whole value at this node is copied deeply and compared whole. */
  leaf: boolean;
  children: Map<string, PathNode>;
}

/** Stands in for a value both objects share: equal to itself, and never looked into. */
const shared = 0;

export class MutationScope {
  readonly #root: PathNode;

  private constructor(root: PathNode) {
    this.#root = root;
  }

  /** The scope of these paths; with undefined among them (a plugin that did not say), the whole object. */
  static of(paths: ReadonlyArray<readonly MutationPath[] | undefined>): MutationScope {
    const root: PathNode = { leaf: false, children: new Map() };
    for (const list of paths) {
      if (list === undefined) return new MutationScope({ leaf: true, children: new Map() });
      for (const path of list) add(root, path);
    }
    return new MutationScope(root);
  }

  /** A copy to mutate: the paths' values are new, everything else is the original's own. */
  copy<T>(original: T): T {
    return copyNode(original, this.#root) as T;
  }

  /** The JSON Patch from original to working, where working came from copy(original) and was changed only along the paths. */
  patch(original: unknown, working: unknown): Operation[] {
    const [from, to] = views(original, working, this.#root);
    return fastJsonPatch.compare(from as object, to as object);
  }
}

function add(node: PathNode, path: MutationPath): void {
  if (path.length === 0) {
    node.leaf = true;
    return;
  }
  const [key, ...rest] = path as [string, ...string[]];
  let child = node.children.get(key);
  if (child === undefined) node.children.set(key, (child = { leaf: false, children: new Map() }));
  add(child, rest);
}

function copyNode(value: unknown, node: PathNode): unknown {
  if (node.leaf) return cloneJson(value);
  // A path through something that is not an object (a malformed body): copy it whole to be safe.
  if (!isPlainObject(value)) return Array.isArray(value) ? cloneJson(value) : value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const child = node.children.get(key);
    setOwn(copy, key, child === undefined ? value[key] : copyNode(value[key], child));
  }
  return copy;
}

/**
 * The two objects as compare should see them: along the paths, objects rebuilt with their own keys
 * in their own order; values off the paths that are the very same in both become the placeholder,
 * values that differ (a plugin assigned a new one) stay, and the paths' own values stay whole.
 */
function views(from: unknown, to: unknown, node: PathNode): [unknown, unknown] {
  if (node.leaf) return [from, to];
  if (from === to) return [shared, shared];
  if (!isPlainObject(from) || !isPlainObject(to)) return [from, to];
  const pairs = new Map<string, [unknown, unknown]>();
  const pairFor = (key: string): [unknown, unknown] => {
    let pair = pairs.get(key);
    if (pair === undefined) {
      const child = node.children.get(key);
      const a = from[key];
      const b = to[key];
      pair = child !== undefined ? views(a, b, child) : a === b ? [shared, shared] : [a, b];
      pairs.set(key, pair);
    }
    return pair;
  };
  const fromView: Record<string, unknown> = {};
  const toView: Record<string, unknown> = {};
  for (const key of Object.keys(from)) setOwn(fromView, key, Object.hasOwn(to, key) ? pairFor(key)[0] : shared);
  for (const key of Object.keys(to)) setOwn(toView, key, Object.hasOwn(from, key) ? pairFor(key)[1] : to[key]);
  return [fromView, toView];
}

/** JSON.parse makes "__proto__" an own data property; plain assignment would set the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

