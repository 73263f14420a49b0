// Upstream plugin/pkg/admission/eventratelimit/admission_test.go TestEventRateLimiting, every row, as
// data: each row's limits (qps 1, upstream's constant) and its requests in order, with the seconds
// the fake clock steps before a request and whether it is admitted. Events are upstream's partial
// api.Event values in their v1 JSON spelling; a request with none has no object.

export interface RequestRow {
  /** "Event", or upstream's "NonEvent" kind. */
  readonly kind: 'Event' | 'NonEvent';
  readonly namespace?: string;
  readonly username?: string;
  readonly event?: { source?: { component?: string; host?: string }; involvedObject?: Record<string, string> };
  readonly delaySeconds?: number;
  readonly dryRun?: boolean;
  readonly accepted: boolean;
}

export interface RateLimitRow {
  readonly name: string;
  /** A limit of each type is configured when its burst is given, in upstream's order: Server, Namespace, User, SourceAndObject. */
  readonly serverBurst?: number;
  readonly namespaceBurst?: number;
  readonly namespaceCacheSize?: number;
  readonly userBurst?: number;
  readonly userCacheSize?: number;
  readonly sourceAndObjectBurst?: number;
  readonly sourceAndObjectCacheSize?: number;
  readonly requests: readonly RequestRow[];
}

export const qps = 1;

const event = (overrides: Partial<RequestRow> = {}): RequestRow => ({ kind: 'Event', accepted: true, ...overrides });
const nonEvent = (): RequestRow => ({ kind: 'NonEvent', accepted: true });
const blocked = (row: RequestRow): RequestRow => ({ ...row, accepted: false });
const inNamespace = (namespace: string, overrides: Partial<RequestRow> = {}) => event({ namespace, ...overrides });
const fromComponent = (component: string, overrides: Partial<RequestRow> = {}) => event({ event: { source: { component } }, ...overrides });
const byUser = (username: string) => event({ username });

/** createSourceAndObjectKeyInclusionRequests: A, A again (blocked), then B. */
const keyInclusion = (eventFor: (label: string) => RequestRow['event']): RequestRow[] => [
  event({ event: eventFor('A') }),
  blocked(event({ event: eventFor('A') })),
  event({ event: eventFor('B') }),
];

const sourceAndObject = { serverBurst: 100, sourceAndObjectBurst: 1, sourceAndObjectCacheSize: 10 };
const namespaced = { serverBurst: 100, namespaceBurst: 3, namespaceCacheSize: 10 };
const bySource = { serverBurst: 100, sourceAndObjectBurst: 3, sourceAndObjectCacheSize: 10 };

export const eventRateLimitingCases: readonly RateLimitRow[] = [
  { name: 'event not blocked when tokens available', serverBurst: 3, requests: [event()] },
  { name: 'non-event not blocked', serverBurst: 3, requests: [nonEvent()] },
  { name: 'event blocked after tokens exhausted', serverBurst: 3, requests: [event(), event(), event(), blocked(event())] },
  {
    name: 'event not blocked by dry-run requests',
    serverBurst: 3,
    requests: [
      event(),
      event(),
      event({ dryRun: true }),
      event({ dryRun: true }),
      event({ dryRun: true }),
      event({ dryRun: true }),
      event(),
      blocked(event()),
      event({ dryRun: true }),
    ],
  },
  { name: 'non-event not blocked after tokens exhausted', serverBurst: 3, requests: [event(), event(), event(), nonEvent()] },
  { name: 'non-events should not count against limit', serverBurst: 3, requests: [event(), event(), nonEvent(), event()] },
  {
    name: 'event accepted after token refill',
    serverBurst: 3,
    requests: [event(), event(), event(), blocked(event()), event({ delaySeconds: 1 })],
  },
  {
    name: 'event blocked by namespace limits',
    ...namespaced,
    requests: [inNamespace('A'), inNamespace('A'), inNamespace('A'), blocked(inNamespace('A'))],
  },
  {
    name: 'event from other namespace not blocked',
    ...namespaced,
    requests: [inNamespace('A'), inNamespace('A'), inNamespace('A'), inNamespace('B')],
  },
  {
    name: 'events from other namespaces should not count against limit',
    ...namespaced,
    requests: [inNamespace('A'), inNamespace('A'), inNamespace('B'), inNamespace('A')],
  },
  {
    name: 'event accepted after namespace token refill',
    ...namespaced,
    requests: [inNamespace('A'), inNamespace('A'), inNamespace('A'), blocked(inNamespace('A')), inNamespace('A', { delaySeconds: 1 })],
  },
  {
    name: 'event from other namespaces should not clear namespace limits',
    ...namespaced,
    requests: [inNamespace('A'), inNamespace('A'), inNamespace('A'), inNamespace('B'), blocked(inNamespace('A'))],
  },
  {
    name: 'namespace limits from lru namespace should clear when cache size exceeded',
    ...namespaced,
    namespaceCacheSize: 2,
    requests: [
      inNamespace('A'),
      inNamespace('A'),
      inNamespace('B'),
      inNamespace('B'),
      inNamespace('B'),
      inNamespace('A'),
      blocked(inNamespace('B')),
      blocked(inNamespace('A')),
      // This clears namespace B out of the LRU cache.
      inNamespace('C'),
      blocked(inNamespace('A')),
      inNamespace('B'),
    ],
  },
  {
    name: 'event blocked by source+object limits',
    ...bySource,
    requests: [fromComponent('A'), fromComponent('A'), fromComponent('A'), blocked(fromComponent('A'))],
  },
  {
    name: 'event from other source+object not blocked',
    ...bySource,
    requests: [fromComponent('A'), fromComponent('A'), fromComponent('A'), fromComponent('B')],
  },
  {
    name: 'events from other source+object should not count against limit',
    ...bySource,
    requests: [fromComponent('A'), fromComponent('A'), fromComponent('B'), fromComponent('A')],
  },
  {
    name: 'event accepted after source+object token refill',
    ...bySource,
    requests: [
      fromComponent('A'),
      fromComponent('A'),
      fromComponent('A'),
      blocked(fromComponent('A')),
      fromComponent('A', { delaySeconds: 1 }),
    ],
  },
  {
    name: 'event from other source+object should not clear source+object limits',
    ...bySource,
    requests: [fromComponent('A'), fromComponent('A'), fromComponent('A'), fromComponent('B'), blocked(fromComponent('A'))],
  },
  {
    name: 'source+object limits from lru source+object should clear when cache size exceeded',
    ...bySource,
    sourceAndObjectCacheSize: 2,
    requests: [
      fromComponent('A'),
      fromComponent('A'),
      fromComponent('B'),
      fromComponent('B'),
      fromComponent('B'),
      fromComponent('A'),
      blocked(fromComponent('B')),
      blocked(fromComponent('A')),
      // This clears component B out of the LRU cache.
      fromComponent('C'),
      blocked(fromComponent('A')),
      fromComponent('B'),
    ],
  },
  {
    name: 'source host should be included in source+object key',
    ...sourceAndObject,
    requests: keyInclusion((label) => ({ source: { host: label } })),
  },
  {
    name: 'involved object kind should be included in source+object key',
    ...sourceAndObject,
    requests: keyInclusion((label) => ({ involvedObject: { kind: label } })),
  },
  {
    name: 'involved object namespace should be included in source+object key',
    ...sourceAndObject,
    requests: keyInclusion((label) => ({ involvedObject: { namespace: label } })),
  },
  {
    name: 'involved object name should be included in source+object key',
    ...sourceAndObject,
    requests: keyInclusion((label) => ({ involvedObject: { name: label } })),
  },
  {
    name: 'involved object UID should be included in source+object key',
    ...sourceAndObject,
    requests: keyInclusion((label) => ({ involvedObject: { uid: label } })),
  },
  {
    name: 'involved object APIVersion should be included in source+object key',
    ...sourceAndObject,
    requests: keyInclusion((label) => ({ involvedObject: { apiVersion: label } })),
  },
  {
    name: 'event blocked by user limits',
    userBurst: 3,
    userCacheSize: 10,
    requests: [byUser('A'), byUser('A'), byUser('A'), blocked(byUser('A'))],
  },
  // Upstream's last two rows configure no limit at all (no burst given): every event passes.
  { name: 'event from other user not blocked', requests: [byUser('A'), byUser('A'), byUser('A'), byUser('B')] },
  { name: 'events from other user should not count against limit', requests: [byUser('A'), byUser('A'), byUser('B'), byUser('A')] },
];

/** The row's limits, as upstream's test builds its Configuration. */
export function limitsOf(row: RateLimitRow): Array<{ type: string; qps: number; burst: number; cacheSize: number }> {
  const limits: Array<{ type: string; qps: number; burst: number; cacheSize: number }> = [];
  if ((row.serverBurst ?? 0) > 0) limits.push({ type: 'Server', qps, burst: row.serverBurst!, cacheSize: 0 });
  if ((row.namespaceBurst ?? 0) > 0)
    limits.push({ type: 'Namespace', qps, burst: row.namespaceBurst!, cacheSize: row.namespaceCacheSize ?? 0 });
  if ((row.userBurst ?? 0) > 0) limits.push({ type: 'User', qps, burst: row.userBurst!, cacheSize: row.userCacheSize ?? 0 });
  if ((row.sourceAndObjectBurst ?? 0) > 0)
    limits.push({ type: 'SourceAndObject', qps, burst: row.sourceAndObjectBurst!, cacheSize: row.sourceAndObjectCacheSize ?? 0 });
  return limits;
}

/** TestValidateConfiguration, every row: the limits and whether they validate. */
export const validateConfigurationCases: ReadonlyArray<{
  name: string;
  limits: ReadonlyArray<{ type?: string; burst?: number; qps?: number; cacheSize?: number }> | undefined;
  valid: boolean;
}> = [
  { name: 'valid server', limits: [{ type: 'Server', burst: 5, qps: 1 }], valid: true },
  { name: 'valid namespace', limits: [{ type: 'Namespace', burst: 10, qps: 2, cacheSize: 100 }], valid: true },
  { name: 'valid user', limits: [{ type: 'User', burst: 10, qps: 2, cacheSize: 100 }], valid: true },
  { name: 'valid source+object', limits: [{ type: 'SourceAndObject', burst: 5, qps: 1, cacheSize: 1000 }], valid: true },
  {
    name: 'valid multiple',
    limits: [
      { type: 'Server', burst: 5, qps: 1 },
      { type: 'Namespace', burst: 10, qps: 2, cacheSize: 100 },
      { type: 'SourceAndObject', burst: 25, qps: 10, cacheSize: 1000 },
    ],
    valid: true,
  },
  { name: 'missing limits', limits: undefined, valid: false },
  { name: 'missing type', limits: [{ burst: 25, qps: 10, cacheSize: 1000 }], valid: false },
  { name: 'invalid type', limits: [{ type: 'unknown-type', burst: 25, qps: 10, cacheSize: 1000 }], valid: false },
  { name: 'missing burst', limits: [{ type: 'Server', qps: 1 }], valid: false },
  { name: 'missing qps', limits: [{ type: 'Server', burst: 5 }], valid: false },
  { name: 'negative cache size', limits: [{ type: 'Namespace', burst: 10, qps: 2, cacheSize: -1 }], valid: false },
];

/**
 * TestLRUCache, every row: the key asked for and which bucket (by creation order) comes back, over
 * an LRU of two.
 */
export const lruCacheCases: ReadonlyArray<{ name: string; key: number; expected: number }> = [
  { name: 'first added', key: 0, expected: 0 },
  { name: 'first obtained', key: 0, expected: 0 },
  { name: 'second added', key: 1, expected: 1 },
  { name: 'second obtained', key: 1, expected: 1 },
  { name: 'first obtained second time', key: 0, expected: 0 },
  { name: 'third added', key: 2, expected: 2 },
  { name: 'third obtained', key: 2, expected: 2 },
  { name: 'first obtained third time', key: 0, expected: 0 },
  { name: 'second re-added after eviction', key: 1, expected: 3 },
];
