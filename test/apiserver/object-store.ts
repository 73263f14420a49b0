// An in-memory etcd stand-in: objects keyed by group/version/resource/namespace/name, one global
// resourceVersion counter, and an event log so a watch can resume from a resourceVersion.

export interface StoredObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; uid?: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface ResourceType {
  group: string;
  version: string;
  /** Plural resource name: "serviceaccounts". */
  resource: string;
  kind: string;
  namespaced: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface WatchEvent {
  type: WatchEventType;
  object: StoredObject;
}

interface LoggedEvent extends WatchEvent {
  resourceKey: string;
  namespace: string;
  resourceVersion: number;
}

type Listener = (event: LoggedEvent) => void;

function resourceKey(type: ResourceType): string {
  return `${type.group}/${type.version}/${type.resource}`;
}

export class ObjectStore {
  #resourceVersion = 0;
  #uid = 0;
  readonly #objects = new Map<string, Map<string, StoredObject>>();
  readonly #log: LoggedEvent[] = [];
  /** Each open watch's listener, and what ends its stream when the store drops it. */
  readonly #listeners = new Map<Listener, (() => void) | undefined>();

  get resourceVersion(): string {
    return String(this.#resourceVersion);
  }

  /** Creates or replaces an object; stamps a fresh resourceVersion (and a uid on create). */
  put(type: ResourceType, object: StoredObject): StoredObject {
    const name = object.metadata?.name;
    if (!name) throw new Error('object has no metadata.name');
    const namespace = type.namespaced ? (object.metadata?.namespace ?? 'default') : '';
    const objects = this.#collection(type);
    const itemKey = `${namespace}/${name}`;
    const previous = objects.get(itemKey);
    this.#resourceVersion += 1;
    const stored: StoredObject = structuredClone(object);
    stored.apiVersion = type.group === '' ? type.version : `${type.group}/${type.version}`;
    stored.kind = type.kind;
    stored.metadata = {
      ...stored.metadata,
      name,
      ...(type.namespaced ? { namespace } : {}),
      uid: previous?.metadata?.uid ?? stored.metadata?.uid ?? `00000000-0000-0000-0000-${String(++this.#uid).padStart(12, '0')}`,
      resourceVersion: String(this.#resourceVersion),
    };
    objects.set(itemKey, stored);
    this.#emit(type, namespace, previous === undefined ? 'ADDED' : 'MODIFIED', stored);
    return structuredClone(stored);
  }

  delete(type: ResourceType, namespace: string, name: string): boolean {
    const objects = this.#collection(type);
    const itemKey = `${type.namespaced ? namespace : ''}/${name}`;
    const previous = objects.get(itemKey);
    if (previous === undefined) return false;
    objects.delete(itemKey);
    this.#resourceVersion += 1;
    const tombstone = structuredClone(previous);
    tombstone.metadata = { ...tombstone.metadata, resourceVersion: String(this.#resourceVersion) };
    this.#emit(type, type.namespaced ? namespace : '', 'DELETED', tombstone);
    return true;
  }

  get(type: ResourceType, namespace: string, name: string): StoredObject | undefined {
    const found = this.#collection(type).get(`${type.namespaced ? namespace : ''}/${name}`);
    return found === undefined ? undefined : structuredClone(found);
  }

  /** Objects of a type, in one namespace or (namespace undefined) all of them, by name. */
  list(type: ResourceType, namespace?: string): StoredObject[] {
    return [...this.#collection(type).entries()]
      .filter(([key]) => namespace === undefined || key.startsWith(`${namespace}/`))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, object]) => structuredClone(object));
  }

  /**
   * One page of a LIST: the objects whose "namespace/name" key sorts after `after` (code-unit
   * order; "" for the first page), at most `limit` of them (0: all), copied; and how many follow.
   * Only the page is copied, so paging through 10,000 objects stays linear.
   */
  listPage(type: ResourceType, namespace: string | undefined, after: string, limit: number): { items: StoredObject[]; remaining: number } {
    const keys = [...this.#collection(type).keys()]
      .filter((key) => (namespace === undefined || key.startsWith(`${namespace}/`)) && (after === '' || key > after))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const taken = limit > 0 ? keys.slice(0, limit) : keys;
    const objects = this.#collection(type);
    return { items: taken.map((key) => structuredClone(objects.get(key)!)), remaining: keys.length - taken.length };
  }

  /**
   * Events for a type after resourceVersion `since` (replayed from the log), then live ones,
   * until the returned function is called.
   */
  watch(
    type: ResourceType,
    namespace: string | undefined,
    since: number,
    onEvent: (event: WatchEvent) => void,
    onDropped?: () => void,
  ): () => void {
    const key = resourceKey(type);
    const wanted = (e: LoggedEvent) => e.resourceKey === key && (namespace === undefined || e.namespace === namespace);
    for (const event of this.#log) {
      if (event.resourceVersion > since && wanted(event)) onEvent({ type: event.type, object: structuredClone(event.object) });
    }
    const listener: Listener = (event) => {
      if (wanted(event)) onEvent({ type: event.type, object: structuredClone(event.object) });
    };
    this.#listeners.set(listener, onDropped);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Ends every open watch, as an API server restart or a load balancer cutting idle streams would;
   * clients must watch again (or relist). Returns how many watches were ended.
   */
  dropWatches(): number {
    const dropped = [...this.#listeners.values()];
    this.#listeners.clear();
    for (const end of dropped) end?.();
    return dropped.length;
  }

  #collection(type: ResourceType): Map<string, StoredObject> {
    const key = resourceKey(type);
    let objects = this.#objects.get(key);
    if (objects === undefined) {
      objects = new Map();
      this.#objects.set(key, objects);
    }
    return objects;
  }

  #emit(type: ResourceType, namespace: string, eventType: WatchEventType, object: StoredObject): void {
    const event: LoggedEvent = {
      type: eventType,
      object,
      resourceKey: resourceKey(type),
      namespace,
      resourceVersion: this.#resourceVersion,
    };
    this.#log.push(event);
    for (const listener of [...this.#listeners.keys()]) listener(event);
  }
}
