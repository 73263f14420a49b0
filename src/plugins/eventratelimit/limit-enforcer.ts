// One configured limit (upstream limitEnforcer): which bucket an event draws from, by the limit's
// type, and the refusal when that bucket is empty, in upstream's words.
import type { Attributes } from '../../admission/attributes.ts';
import type { Clock } from '../../ports/clock.ts';
import { isPlainObject } from '../../util/plain-object.ts';
import { type BucketCache, LruBucketCache, singleBucket } from './bucket-cache.ts';
import { defaultCacheSize, type Limit, LimitType } from './configuration.ts';
import { TokenBucket } from './token-bucket.ts';

export interface LimitEnforcer {
  readonly type: LimitType;
  readonly buckets: BucketCache;
  /** undefined when the event may pass; otherwise upstream's message for this limit. */
  accept(attributes: Attributes): string | undefined;
}

export function limitEnforcer(limit: Limit, clock: Clock): LimitEnforcer {
  const newBucket = () => new TokenBucket(limit.qps, limit.burst, clock);
  const type = limit.type as LimitType;
  const key = keyOf(type);
  const buckets =
    type === LimitType.Server ? singleBucket(newBucket()) : new LruBucketCache(limit.cacheSize || defaultCacheSize, newBucket);
  return {
    type,
    buckets,
    accept(attributes) {
      const name = key(attributes);
      if (buckets.get(name).tryAccept()) return undefined;
      return `limit reached on type ${type} for key ${name}`;
    },
  };
}

function keyOf(type: LimitType): (attributes: Attributes) => string {
  switch (type) {
    case LimitType.Server:
      return () => '';
    case LimitType.Namespace:
      return (attributes) => attributes.namespace;
    case LimitType.User:
      return (attributes) => attributes.userInfo.username ?? '';
    case LimitType.SourceAndObject:
      return sourceAndObjectKey;
    default:
      // Validation allows no other type.
      throw new Error(`unknown event rate limit type: ${type as string}`);
  }
}

/**
 * The event's source and involved object, their fields joined with nothing between (upstream's
 * key, ambiguity and all): "" when there is no event.
 */
function sourceAndObjectKey(attributes: Attributes): string {
  const event = attributes.object;
  if (event === undefined || event === null) return '';
  const source = isPlainObject(event.source) ? event.source : {};
  const involved = isPlainObject(event.involvedObject) ? event.involvedObject : {};
  return [source.component, source.host, involved.kind, involved.namespace, involved.name, involved.uid, involved.apiVersion]
    .map((field) => (typeof field === 'string' ? field : ''))
    .join('');
}
