// The in-cluster Authorizer: asks kube-apiserver's SubjectAccessReview API, which consults every
// authorizer the cluster runs (RBAC, Node, webhooks), with the requester's identity passed whole —
// a dropped group or extra would authorize someone as somebody else.
//
// Behaviour follows upstream's webhook authorizer (apiserver plugin/pkg/authorizer/webhook):
// answers are cached by the exact spec sent (under a key equal exactly when the specs are, built
// without the spec: review-keys.ts), allowed and denied with separate TTLs, errors never;
// a failed call answers no-opinion together with the error (callers treat anything but allow as
// a denial, so this fails closed); overload and reset connections are retried with exponential
// backoff. Beyond upstream: identical concurrent reviews share one call, every call is bounded
// by the caller's signal and a default timeout, and an answer still in use near the end of its
// TTL is asked again in the background, so a busy identity never waits for its entry to expire
// (answers are never served past their TTL: this only makes them fresher).
import {
  AuthorizationV1Api,
  type KubeConfig,
  type V1SubjectAccessReviewSpec,
  type V1SubjectAccessReviewStatus,
} from '@kubernetes/client-node';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, ResourceAttributes } from '../../../ports/authorizer.ts';
import { type Clock, type Random, systemClock, systemRandom } from '../../../ports/clock.ts';
import { type Logger, silentLogger } from '../../../ports/logger.ts';
import type { AuthorizationRecorder } from '../../../ports/recorders.ts';
import { requestOf, withTimeout } from '../../../util/signals.ts';
import { createKubeRequests, describeKubeError, errorCode, raceWithSignal, retryHint } from '../client/kube.ts';
import { SingleFlight } from '../client/singleflight.ts';
import { TtlCache } from '../client/ttl-cache.ts';
import { flatKey, identitySpec, type ReviewKey, ReviewKeys, selectorSpec } from './review-keys.ts';

export interface ClusterAuthorizerOptions {
  kubeConfig: KubeConfig;
  allowedTtlMs?: number;
  deniedTtlMs?: number;
  /** Upper bound for one authorize() when the caller's signal allows longer (default 10 s). */
  timeoutMs?: number;
  /** Attempts per review, the first included (default 5, upstream's backoff steps). */
  maxAttempts?: number;
  /** First retry delay, growing 1.5× per attempt with up to 20% jitter (default 500 ms, as upstream). */
  initialBackoffMs?: number;
  /** Cached answers kept at most (least recently used evicted first). */
  cacheSize?: number;
  /** What the cached answers' keys may take together, in bytes (default 16 MiB). */
  cacheBytes?: number;
  /**
   * SubjectAccessReviews one admission request (one caller signal) may put on the wire; cache hits
   * and joins of a review already in flight are free. Beyond, the question is answered no-opinion
   * with an error saying so, which fails closed (default 100).
   */
  maxReviewsPerRequest?: number;
  /**
   * A cache hit with less than this fraction of its TTL left starts a background refresh
   * (default 0.2: the last 2 s of a 10 s TTL); 0 turns refreshing off.
   */
  refreshAheadFraction?: number;
  clock?: Clock;
  random?: Random;
  logger?: Logger;
  /** Told every cache hit, miss, join, refresh and review sent (metrics). */
  recorder?: AuthorizationRecorder;
}

export interface ClusterAuthorizer extends Authorizer {
  /** Releases the connection pool. */
  close(): Promise<void>;
}

/** Distinct decisions (decision, reason, error) shared among cached answers, least recently used dropped first. */
const distinctDecisionsKept = 256;

/** Upstream's webhook skips the cache for requester-controlled attributes this large (a DoS guard). */
const maxControlledAttributesCacheSize = 10_000;
const bothAllowedAndDenied = 'webhook subject access review returned both allow and deny response';
const reviewPath = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

export function createClusterAuthorizer(options: ClusterAuthorizerOptions): ClusterAuthorizer {
  const {
    kubeConfig,
    allowedTtlMs = 10_000,
    deniedTtlMs = 10_000,
    timeoutMs = 10_000,
    maxAttempts = 5,
    initialBackoffMs = 500,
    cacheSize = 8192,
    cacheBytes = 16 * 1024 * 1024,
    maxReviewsPerRequest = 100,
    refreshAheadFraction = 0.2,
    clock = systemClock,
    random = systemRandom,
    logger = silentLogger,
    recorder,
  } = options;
  const api = kubeConfig.makeApiClient(AuthorizationV1Api);
  const requests = createKubeRequests(kubeConfig);
  // Answers are read as decisions once, when they arrive: every hit shares that frozen result.
  const cache = new TtlCache<Readonly<AuthorizationResult>>(cacheSize, cacheBytes);
  const keys = new ReviewKeys(cacheSize);
  // A cluster gives few distinct decisions (the reason names the binding that allowed), so
  // answers that read alike share one frozen result, reason string included, rather than each
  // cached answer keeping its own copy.
  const decisions = new TtlCache<Readonly<AuthorizationResult>>(distinctDecisionsKept);
  const sharedResult = (status: V1SubjectAccessReviewStatus): Readonly<AuthorizationResult> => {
    const result = resultOf(status);
    const key = JSON.stringify([result.decision, result.reason, result.error ?? null]);
    const known = decisions.entry(key, 0)?.value;
    if (known !== undefined) return known;
    const frozen = Object.freeze(result);
    decisions.set(key, frozen, Number.POSITIVE_INFINITY, 0);
    return frozen;
  };
  const flights = new SingleFlight<Readonly<AuthorizationResult>>();
  // Reviews each request has put on the wire, by its signal (one per admission request).
  const reviewsSent = new WeakMap<AbortSignal, number>();
  const tooManyReviews = `too many SubjectAccessReviews for one admission request (more than ${maxReviewsPerRequest})`;
  const url = `${kubeConfig.getCurrentCluster()?.server ?? ''}${reviewPath}`;

  async function reviewOnce(spec: V1SubjectAccessReviewSpec, signal: AbortSignal): Promise<V1SubjectAccessReviewStatus> {
    const started = clock.now();
    try {
      const review = await raceWithSignal(
        api.createSubjectAccessReview(
          { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec } },
          requests.options(signal),
        ),
        signal,
      );
      const status = review.status ?? { allowed: false };
      const outcome = status.denied ? 'denied' : status.allowed ? 'allowed' : 'no-opinion';
      recorder?.requestCompleted({ outcome, code: '201', durationSeconds: (clock.now() - started) / 1000 });
      return status;
    } catch (error) {
      recorder?.requestCompleted({ outcome: 'error', code: errorCode(error), durationSeconds: (clock.now() - started) / 1000 });
      throw error;
    }
  }

  async function reviewWithRetries(spec: V1SubjectAccessReviewSpec, signal: AbortSignal): Promise<V1SubjectAccessReviewStatus> {
    let backoffMs = initialBackoffMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await reviewOnce(spec, signal);
      } catch (error) {
        const hint = retryHint(error);
        if (!hint.retry || attempt >= maxAttempts || signal.aborted) throw error;
        const jitter = random.intBelow(Math.floor(backoffMs * 0.2) + 1);
        await clock.sleep(Math.max(backoffMs + jitter, hint.afterMs), signal);
        backoffMs *= 1.5;
      }
    }
  }

  /** One review on the wire (retries included), read as a decision once and cached when it may be. */
  function reviewAndCache(
    key: ReviewKey,
    spec: V1SubjectAccessReviewSpec,
    cacheable: boolean,
  ): (signal: AbortSignal) => Promise<Readonly<AuthorizationResult>> {
    return async (signal) => {
      const status = await reviewWithRetries(spec, signal);
      const result = sharedResult(status);
      if (cacheable) cache.set(key.family, result, status.allowed ? allowedTtlMs : deniedTtlMs, clock.now(), key.name);
      return result;
    };
  }

  /** Asks again for an answer about to expire, unless that question is already on the wire. */
  function refreshInBackground(key: ReviewKey, attributes: AuthorizationAttributes): void {
    const flight = flatKey(key);
    if (flights.has(flight)) return;
    const spec = subjectAccessReviewSpec(attributes);
    withTimeout(undefined, timeoutMs, (bounded) => flights.run(flight, reviewAndCache(key, spec, true), bounded).result).then(
      () => recorder?.refreshCompleted({ result: 'success' }),
      (error: unknown) => {
        // The cached answer stays until its TTL ends; the next use asks again.
        recorder?.refreshCompleted({ result: 'error' });
        logger.debug({ err: describeKubeError(error, 'POST', url) }, 'SubjectAccessReview refresh failed');
      },
    );
  }

  /** A question not answered from the cache: on the wire, or joining the same question in flight. */
  async function authorizeUncached(
    key: ReviewKey,
    attributes: AuthorizationAttributes,
    cacheable: boolean,
    signal: AbortSignal | undefined,
  ): Promise<AuthorizationResult> {
    recorder?.cacheMiss();
    // One request must not turn into thousands of reviews (10,000 owner references, each its own
    // question): past the limit it gets no more, and its question fails closed.
    if (signal !== undefined && !flights.has(flatKey(key))) {
      const request = requestOf(signal);
      const sent = reviewsSent.get(request) ?? 0;
      if (sent >= maxReviewsPerRequest) {
        recorder?.requestLimited();
        return { decision: 'no-opinion', reason: '', error: tooManyReviews };
      }
      reviewsSent.set(request, sent + 1);
    }
    const spec = subjectAccessReviewSpec(attributes);
    try {
      return await withTimeout(signal, timeoutMs, (bounded) => {
        const ticket = flights.run(flatKey(key), reviewAndCache(key, spec, cacheable), bounded);
        if (ticket.joined) recorder?.singleflightJoined();
        return ticket.result;
      });
    } catch (error) {
      const message = describeKubeError(error, 'POST', url);
      logger.warn({ err: message }, 'SubjectAccessReview failed; answering no opinion');
      return { decision: 'no-opinion', reason: '', error: message };
    }
  }

  return {
    // A narrowly scoped user's request asks a dozen questions, nearly always all cached.
    async authorize(attributes: AuthorizationAttributes, signal?: AbortSignal): Promise<AuthorizationResult> {
      const key = keys.keyFor(attributes);
      const cacheable = controlledAttributesSize(attributes) < maxControlledAttributesCacheSize;
      const now = clock.now();
      const cached = cacheable ? cache.entry(key.family, now, key.name) : undefined;
      if (cached === undefined) return authorizeUncached(key, attributes, cacheable, signal);
      recorder?.cacheHit();
      if (cached.expiresAt - now <= cached.ttlMs * refreshAheadFraction) refreshInBackground(key, attributes);
      return cached.value;
    },
    close: () => requests.close(),
  };
}

/**
 * Decisions as upstream's webhook authorizer reads a status (both allowed and denied is a deny with
 * its error). One deliberate difference: upstream's webhook drops evaluationError, but we carry it
 * as the error, because the SubjectAccessReview endpoint fills evaluationError from kube-apiserver's
 * own authorizer chain — the very `err` an in-tree plugin would print (ORPE's "..., <reason>, <err>").
 */
function resultOf(status: V1SubjectAccessReviewStatus): AuthorizationResult {
  const reason = status.reason ?? '';
  const withEvaluationError = (result: AuthorizationResult): AuthorizationResult =>
    status.evaluationError ? { ...result, error: status.evaluationError } : result;
  if (status.denied && status.allowed) return { decision: 'deny', reason, error: bothAllowedAndDenied };
  if (status.denied) return withEvaluationError({ decision: 'deny', reason });
  if (status.allowed) return withEvaluationError({ decision: 'allow', reason });
  return withEvaluationError({ decision: 'no-opinion', reason });
}

/**
 * The spec exactly as sent. Like Go's encoding (omitempty), empty strings and lists are left out;
 * extra's keys are sorted as Go sorts map keys; group order and extra values are kept as given.
 */
export function subjectAccessReviewSpec(attributes: AuthorizationAttributes): V1SubjectAccessReviewSpec {
  const spec: V1SubjectAccessReviewSpec = identitySpec(attributes.user);
  if (attributes.resourceAttributes !== undefined) spec.resourceAttributes = resourceAttributes(attributes.resourceAttributes);
  if (attributes.nonResourceAttributes !== undefined) {
    const { path, verb } = attributes.nonResourceAttributes;
    spec.nonResourceAttributes = {};
    if (path) spec.nonResourceAttributes.path = path;
    if (verb) spec.nonResourceAttributes.verb = verb;
  }
  return spec;
}

function resourceAttributes(input: ResourceAttributes): NonNullable<V1SubjectAccessReviewSpec['resourceAttributes']> {
  const out: NonNullable<V1SubjectAccessReviewSpec['resourceAttributes']> = {};
  if (input.namespace) out.namespace = input.namespace;
  if (input.verb) out.verb = input.verb;
  if (input.group) out.group = input.group;
  if (input.version) out.version = input.version;
  if (input.resource) out.resource = input.resource;
  if (input.subresource) out.subresource = input.subresource;
  if (input.name) out.name = input.name;
  if (input.fieldSelector !== undefined) out.fieldSelector = selectorSpec(input.fieldSelector);
  if (input.labelSelector !== undefined) out.labelSelector = selectorSpec(input.labelSelector);
  return out;
}

function controlledAttributesSize(attributes: AuthorizationAttributes): number {
  const r = attributes.resourceAttributes;
  if (r !== undefined) {
    return (
      (r.namespace?.length ?? 0) +
      (r.verb?.length ?? 0) +
      (r.group?.length ?? 0) +
      (r.version?.length ?? 0) +
      (r.resource?.length ?? 0) +
      (r.subresource?.length ?? 0) +
      (r.name?.length ?? 0)
    );
  }
  const n = attributes.nonResourceAttributes;
  return (n?.verb?.length ?? 0) + (n?.path?.length ?? 0);
}
