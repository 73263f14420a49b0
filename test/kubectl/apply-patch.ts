// The strategic merge patch kubectl sends for built-in kinds on the UPDATE path of `kubectl apply`
// (custom resources, which have no Go type for kubectl to consult, get a JSON merge patch:
// test/apiserver/patches.ts), applied the way kube-apiserver's patch handler applies it, for the
// fields our scenarios touch: maps merge, `null` deletes, lists named in `mergeKeys` merge
// element-wise by key (`$patch: delete` removes one), `finalizers` merge as a set,
// `$setElementOrder/<list>` orders the result, `$deleteFromPrimitiveList/<list>` removes values,
// `$retainKeys` prunes, `$patch: replace|delete` on a map; every other list is replaced whole.
// Simplified against upstream: merge keys are looked up by field name alone (upstream reads them
// from the Go struct tags, per type), and elements missing from a `$setElementOrder` list go last
// instead of keeping their upstream interleaving.
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Field name → the key its list elements merge by (pod spec, object metadata). */
const mergeKeys: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  ownerReferences: 'uid',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  imagePullSecrets: 'name',
  ports: 'containerPort',
};
/** Lists of scalars that merge as sets instead of being replaced. */
const primitiveMergeLists = new Set(['finalizers']);

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

export function applyStrategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  return mergeMap(isObject(target) ? structuredClone(target) : {}, patch);
}

function mergeMap(original: JsonObject, patch: JsonObject): JsonObject | undefined {
  const directive = patch.$patch;
  if (directive === 'delete') return undefined;
  if (directive === 'replace') {
    const { $patch: _ignored, ...rest } = patch;
    return stripDirectives(rest);
  }
  let result: JsonObject = { ...original };
  const retainKeys = Array.isArray(patch.$retainKeys) ? (patch.$retainKeys as string[]) : undefined;
  const orders: Record<string, Json[]> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys') continue;
    if (key.startsWith('$setElementOrder/')) {
      orders[key.slice('$setElementOrder/'.length)] = value as Json[];
      continue;
    }
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const current = result[field];
      if (Array.isArray(current)) result[field] = current.filter((item) => !(value as Json[]).includes(item));
      continue;
    }
    if (value === null) {
      delete result[key];
    } else if (isObject(value)) {
      const merged = mergeMap(isObject(result[key]) ? result[key] : {}, value);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else if (Array.isArray(value)) {
      result[key] = mergeList(key, result[key], value);
    } else {
      result[key] = value;
    }
  }
  for (const [field, order] of Object.entries(orders)) {
    const list = result[field];
    if (Array.isArray(list)) result[field] = orderBy(field, list, order);
  }
  if (retainKeys !== undefined) result = Object.fromEntries(Object.entries(result).filter(([key]) => retainKeys.includes(key)));
  return result;
}

function mergeList(field: string, original: Json | undefined, patch: Json[]): Json[] {
  const current = Array.isArray(original) ? original : [];
  const key = mergeKeys[field];
  if (primitiveMergeLists.has(field)) return [...current, ...patch.filter((item) => !current.includes(item))];
  if (key === undefined) return stripDirectives(patch) as Json[];
  const result = [...current];
  for (const element of patch) {
    if (!isObject(element)) continue;
    const index = result.findIndex((existing) => isObject(existing) && existing[key] === element[key]);
    if (element.$patch === 'delete') {
      if (index >= 0) result.splice(index, 1);
      continue;
    }
    if (index >= 0) {
      const merged = mergeMap(result[index] as JsonObject, element);
      if (merged === undefined) result.splice(index, 1);
      else result[index] = merged;
    } else {
      result.push(stripDirectives(element));
    }
  }
  return result;
}

function orderBy(field: string, list: Json[], order: Json[]): Json[] {
  const key = mergeKeys[field];
  const identity = (item: Json) => (key !== undefined && isObject(item) ? item[key] : item);
  const wanted = order.map(identity);
  const position = (item: Json) => {
    const at = wanted.findIndex((w) => w === identity(item));
    return at === -1 ? wanted.length : at;
  };
  return [...list].sort((a, b) => position(a) - position(b));
}

function stripDirectives<T extends Json>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => stripDirectives(v)) as T;
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !k.startsWith('$')).map(([k, v]) => [k, stripDirectives(v)])) as T;
}
