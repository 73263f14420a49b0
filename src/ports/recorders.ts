// What the adapters and the port decorators observe, as small recorder interfaces with no
// prom-client in them: adapters take one optionally and call it; the composition root hands them
// the Prometheus implementations in src/observability. Every field here becomes a bounded label,
// so none carries a name, namespace or user.

/** The cluster SubjectAccessReview authorizer's observations. */
export interface AuthorizationRecorder {
  cacheHit(): void;
  cacheMiss(): void;
  /** A review that joined an identical one already on the wire instead of sending its own. */
  singleflightJoined(): void;
  /** A background refresh of a cached answer near its expiry finished. */
  refreshCompleted(observation: { result: 'success' | 'error' }): void;
  /** A question refused because its admission request had sent as many reviews as it may. */
  requestLimited(): void;
  /** One per SubjectAccessReview put on the wire, retries included. */
  requestCompleted(observation: { outcome: 'allowed' | 'denied' | 'no-opinion' | 'error'; code: string; durationSeconds: number }): void;
}

/** Outcome of one discovery refresh: `partial` when some group versions failed (client-go's ErrGroupDiscoveryFailed). */
export type DiscoveryRefreshResult = 'success' | 'partial' | 'error';

export interface DiscoveryRecorder {
  refreshCompleted(observation: { result: DiscoveryRefreshResult; durationSeconds: number }): void;
}

/** The lookups a plugin may make (the keys of the Lookups port), as plural resource names. */
export type LookupResource = 'serviceaccounts' | 'secrets' | 'runtimeclasses' | 'namespaces' | 'nodes';

/** Reads through the Lookups port, as its decorator (src/observability/instrument-lookups.ts) sees them. */
export interface LookupRecorder {
  /** A read from the informer cache (or local state). */
  cacheRead(observation: { resource: LookupResource; found: boolean }): void;
  /** A live GET from the API server. */
  liveRead(observation: { resource: LookupResource; result: 'found' | 'not-found' | 'error'; durationSeconds: number }): void;
  /** A live GET repeated after a NotFound for the same object (ServiceAccount waiting for `default`). */
  retried(observation: { resource: LookupResource }): void;
}

/** Why an informer cache started over: an error, a watchdog-detected stall, or the periodic resync. */
export type InformerRestartReason = 'error' | 'stall' | 'resync';

/** Informer caches (one LIST + WATCH per resource): the cluster lookups', or the RBAC mirror's by its own resources. */
export interface InformerRecorder<R extends string = LookupResource> {
  /** A LIST completed and replaced the cache (the first one, a relist after a restart, a resync). */
  informerList(resource: R): void;
  /** The LIST or the WATCH failed; the cache keeps its contents and restarts after a backoff. */
  informerError(resource: R): void;
  informerRestart(resource: R, reason: InformerRestartReason): void;
}

/** EventRateLimit's limit types, as its configuration names them. */
export type EventRateLimitType = 'Server' | 'Namespace' | 'User' | 'SourceAndObject';

/** What EventRateLimit observes: one call per limit that refused an event (two limits refusing one event, two calls). */
export interface EventRateLimitRecorder {
  limitReached(type: EventRateLimitType): void;
}

/** Where ImagePolicyWebhook's answer came from, and what it was ('error': the backend could not answer). */
export interface ImagePolicyReview {
  readonly source: 'cache' | 'backend';
  readonly outcome: 'allowed' | 'denied' | 'error';
}

/** What ImagePolicyWebhook observes: each question (per phase), and each attempt put on the wire. */
export interface ImagePolicyWebhookRecorder {
  reviewed(review: ImagePolicyReview): void;
  /** One per POST, retries included: the status class, or 'none' when no response came. */
  attemptCompleted(observation: { code: '2xx' | '3xx' | '4xx' | '5xx' | 'none' }): void;
}

/** The recorders plugins are given (Ports.recorders), each for the plugin it names. */
export interface PluginRecorders {
  readonly eventRateLimit?: EventRateLimitRecorder;
  readonly imagePolicyWebhook?: ImagePolicyWebhookRecorder;
}
