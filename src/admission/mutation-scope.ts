// Where mutating plugins may write, so /mutate copies and diffs only that much of the object.
// Copying a whole 3 MiB object and diffing it against the request's took a second and a hundred
// MiB per request; a pod's mutating plugins touch its containers, volumes and a few spec and
// metadata fields. Each plugin lists the paths it writes; the union is copied (the objects along
// the way shallowly, each path's own value deeply) and everything else is shared with the request's
// object. A path may pass through every item of a list (`eachItem`): a plugin that sets one field of
// each container has the list and each container copied, not their environment or resources. The
// patch is fast-json-patch's compare over views of the two objects in which shared, untouched values
// are replaced by one placeholder: the same operations, in the same order, as comparing the whole
// objects, but the work is that of the paths. Inside a path's copy, the parts equal in both become
// the placeholder too, found by a walk that lists no keys and keeps its own stack: compare lists the
// keys of every object and array it walks (a million-item array in a container copied whole cost
// more heap than its copy), and emits nothing for equal parts anyway.
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import { cloneJson } from '../util/clone-json.ts';
import { isPlainObject } from '../util/plain-object.ts';

/**
 * Every item of the array at this point of a path: a plugin that sets one field of each container
 * says so, and only the array and its items are copied (shallowly), not what the items hold.
 */
export const eachItem: unique symbol = Symbol('each item');

/** Object keys (or eachItem) from the root to a value a plugin may change (in place or by assignment). */
export type MutationPath = readonly (string | typeof eachItem)[];

interface PathNode {
  /** The whole value at this node is copied deeply and compared whole. */
  leaf: boolean;
  children: Map<string | typeof eachItem, PathNode>;
}

/** Stands in for a value both objects share: equal to itself, and never looked into. */
const shared = 0;
/** Both sides as the placeholder: a pair compare has nothing to say about. Never written to. */
const both: [unknown, unknown] = [shared, shared];

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

  /**
   * The JSON Patch from original to working, where working came from copy(original) and was changed
   * only along the paths. Always through the views: a shortcut that compared the objects themselves
   * when only primitives changed read one object's keys from another inside for...in, which V8
   * deoptimized on every request in the server (node --trace-deopt: "unexpected name in keyed
   * access") and cost more than it saved.
   */
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
  const [key, ...rest] = path as [string | typeof eachItem, ...MutationPath];
  let child = node.children.get(key);
  if (child === undefined) node.children.set(key, (child = { leaf: false, children: new Map() }));
  add(child, rest);
}

function copyNode(value: unknown, node: PathNode): unknown {
  if (node.leaf) return cloneJson(value);
  const item = node.children.get(eachItem);
  if (item !== undefined) {
    // Each item along the rest of the path; anything else found here (a malformed body) is copied whole.
    if (!Array.isArray(value)) return cloneJson(value);
    const copy = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) if (i in value) copy[i] = copyNode(value[i], item);
    return copy;
  }
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
 * in their own order; values off the paths that are the very same in both become the placeholder;
 * what differs off them (a plugin assigned a new value) and the paths' own values are kept but for
 * their parts equal in both.
 */
function views(from: unknown, to: unknown, node: PathNode): [unknown, unknown] {
  if (node.leaf) return withoutEqualParts(from, to);
  if (from === to) return both;
  const item = node.children.get(eachItem);
  if (item !== undefined) return Array.isArray(from) && Array.isArray(to) ? itemViews(from, to, item) : withoutEqualParts(from, to);
  if (!isPlainObject(from) || !isPlainObject(to)) return withoutEqualParts(from, to);
  const pairs = new Map<string, [unknown, unknown]>();
  const pairFor = (key: string): [unknown, unknown] => {
    let pair = pairs.get(key);
    if (pair === undefined) {
      const child = node.children.get(key);
      const a = from[key];
      const b = to[key];
      pair = child !== undefined ? views(a, b, child) : withoutEqualParts(a, b);
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

/** Two arrays whose items were copied along the rest of a path: each pair of items viewed along it. */
function itemViews(a: unknown[], b: unknown[], item: PathNode): [unknown, unknown] {
  const fromView = new Array<unknown>(a.length);
  const toView = new Array<unknown>(b.length);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i in a && i in b) [fromView[i], toView[i]] = views(a[i], b[i], item);
    else {
      // As arraysWithoutEqualParts: an item in one only is compare's to add or remove.
      if (i in a) fromView[i] = a[i];
      if (i in b) toView[i] = b[i];
    }
  }
  return [fromView, toView];
}

/**
 * The pair with every part that is equal in both (same keys, same array lengths, primitives ===)
 * replaced by the placeholder, `both` when all of it is; compare emits no operation for an equal
 * part, so the patch stays the same. What differs keeps its real values, which compare puts in
 * the patch. Views are built only for the objects and arrays that differ. Equal parts are found
 * without recursion, so a value nested as deep as its copy could be is compared too.
 */
function withoutEqualParts(a: unknown, b: unknown): [unknown, unknown] {
  if (a === b || equal(a, b)) return both;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return [a, b];
  if (Array.isArray(a)) return arraysWithoutEqualParts(a, b as unknown[]);
  return objectsWithoutEqualParts(a as Record<string, unknown>, b as Record<string, unknown>);
}

/**
 * Whether compare would find nothing between a and b: one walk, with stacks of its own, that holds
 * an object's members at a time and an array's items one by one (a cursor per array).
 */
function equal(a: unknown, b: unknown): boolean {
  const pairs: unknown[] = [a, b];
  const lists: Array<{ x: unknown[]; y: unknown[]; next: number }> = [];
  for (;;) {
    if (pairs.length === 0) {
      const list = lists.at(-1);
      if (list === undefined) return true;
      if (list.next === list.x.length) {
        lists.pop();
        continue;
      }
      const i = list.next++;
      // A hole is a key compare does not find: such arrays are compared as they are.
      if (!(i in list.x) || !(i in list.y)) return false;
      pairs.push(list.x[i], list.y[i]);
      continue;
    }
    const y = pairs.pop();
    const x = pairs.pop();
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      if (x.length > 0) lists.push({ x, y, next: 0 });
      continue;
    }
    if (Array.isArray(y)) return false;
    // for...in rather than Object.keys: no array of keys for each of a million small objects.
    let keys = 0;
    for (const key in x) {
      if (!Object.hasOwn(x, key)) continue;
      if (!Object.hasOwn(y, key)) return false;
      keys++;
      pairs.push((x as Record<string, unknown>)[key], (y as Record<string, unknown>)[key]);
    }
    for (const key in y) if (Object.hasOwn(y, key)) keys--;
    if (keys !== 0) return false;
  }
}

function arraysWithoutEqualParts(a: unknown[], b: unknown[]): [unknown, unknown] {
  const fromView = new Array<unknown>(a.length);
  const toView = new Array<unknown>(b.length);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i in a && i in b) [fromView[i], toView[i]] = withoutEqualParts(a[i], b[i]);
    else {
      // An item in one only (past the other's end, or a hole, which compare does not find either):
      // as it is, for compare to remove by index or add with its value; a hole stays a hole.
      if (i in a) fromView[i] = a[i];
      if (i in b) toView[i] = b[i];
    }
  }
  return [fromView, toView];
}

function objectsWithoutEqualParts(a: Record<string, unknown>, b: Record<string, unknown>): [unknown, unknown] {
  const fromView: Record<string, unknown> = {};
  const toView: Record<string, unknown> = {};
  const pairs = new Map<string, [unknown, unknown]>();
  for (const key of Object.keys(a)) {
    if (!Object.hasOwn(b, key)) {
      setOwn(fromView, key, shared);
      continue;
    }
    const pair = withoutEqualParts(a[key], b[key]);
    pairs.set(key, pair);
    setOwn(fromView, key, pair[0]);
  }
  for (const key of Object.keys(b)) {
    const pair = pairs.get(key);
    // A key only b has is compare's to add, with its value.
    setOwn(toView, key, pair !== undefined ? pair[1] : b[key]);
  }
  return [fromView, toView];
}

/** JSON.parse makes "__proto__" an own data property; plain assignment would set the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
