// Authorization metrics: the SubjectAccessReview round trips in kube-apiserver's delegated-authz
// vocabulary (apiserver_delegated_authz_request_total / _duration_seconds, by code), plus what
// upstream's webhook authorizer does not have: the answer cache and singleflight joins.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { AuthorizationRecorder } from '../ports/recorders.ts';
import { HotCounter, HotHistogram } from './hot-metrics.ts';
import { boundedCode } from './labels.ts';

// Upstream's buckets (0.25 … 10 s) start where a slow API server does; a healthy in-cluster
// review takes milliseconds, so finer buckets come first.
export const authorizationBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.7, 1, 1.5, 3, 5, 10];

export interface AuthorizationMetrics {
  readonly requests: Counter<'code' | 'outcome'>;
  readonly requestDuration: Histogram<'code'>;
  // Recorded for every authorization question (a dozen per request for a narrowly scoped user).
  readonly cacheRequests: HotCounter<'status'>;
  readonly singleflightJoins: Counter;
  readonly limitedQuestions: Counter;
  readonly cacheRefreshes: Counter<'result'>;
  readonly decisions: HotCounter<'decision'>;
  readonly decisionDuration: HotHistogram<'decision'>;
}

export function createAuthorizationMetrics(registry: Registry): AuthorizationMetrics {
  const registers = [registry];
  const requests = new Counter({
    name: 'admission_chain_delegated_authz_request_total',
    help: 'SubjectAccessReview requests sent to the API server (retries included), by HTTP status code (or timeout, canceled, network) and outcome.',
    labelNames: ['code', 'outcome'],
    registers,
  });
  const cacheRequests = new HotCounter({
    name: 'admission_chain_authorization_cache_requests_total',
    help: 'SubjectAccessReview answer cache look-ups, by status (hit or miss).',
    labelNames: ['status'],
    registers,
  });
  // Both statuses exist from the start so a hit ratio is defined before the first miss.
  for (const status of ['hit', 'miss']) cacheRequests.inc({ status }, 0);
  return {
    requests,
    requestDuration: new Histogram({
      name: 'admission_chain_delegated_authz_request_duration_seconds',
      help: 'SubjectAccessReview request latency in seconds, by HTTP status code (or timeout, canceled, network).',
      labelNames: ['code'],
      buckets: authorizationBuckets,
      registers,
    }),
    cacheRequests,
    singleflightJoins: new Counter({
      name: 'admission_chain_authorization_singleflight_joins_total',
      help: 'Authorization questions that joined an identical SubjectAccessReview already in flight instead of sending their own.',
      registers,
    }),
    limitedQuestions: new Counter({
      name: 'admission_chain_authorization_request_limit_reached_total',
      help: 'Authorization questions answered no-opinion without a SubjectAccessReview because their admission request had sent --max-subject-access-reviews-per-request already.',
      registers,
    }),
    cacheRefreshes: new Counter({
      name: 'admission_chain_authorization_cache_refreshes_total',
      help: 'Cached SubjectAccessReview answers asked again in the background shortly before they expired, by result (success or error).',
      labelNames: ['result'],
      registers,
    }),
    decisions: new HotCounter({
      name: 'admission_chain_authorization_decisions_total',
      help: 'Answers the authorizer gave plugins (cached or not), by decision (allow, deny, no-opinion).',
      labelNames: ['decision'],
      registers,
    }),
    decisionDuration: new HotHistogram({
      name: 'admission_chain_authorization_duration_seconds',
      help: 'Time plugins waited for an authorization answer in seconds, retries included (a cached answer takes microseconds), by decision.',
      labelNames: ['decision'],
      buckets: authorizationBuckets,
      registers,
    }),
  };
}

/** The Prometheus side of the cluster authorizer's `metrics` option. */
export function authorizationRecorder(metrics: AuthorizationMetrics): AuthorizationRecorder {
  return {
    cacheHit: () => metrics.cacheRequests.inc({ status: 'hit' }),
    cacheMiss: () => metrics.cacheRequests.inc({ status: 'miss' }),
    singleflightJoined: () => metrics.singleflightJoins.inc(),
    requestLimited: () => metrics.limitedQuestions.inc(),
    refreshCompleted: ({ result }) => metrics.cacheRefreshes.inc({ result }),
    requestCompleted: ({ outcome, code, durationSeconds }) => {
      const bounded = boundedCode(code);
      metrics.requests.inc({ code: bounded, outcome });
      metrics.requestDuration.observe({ code: bounded }, durationSeconds);
    },
  };
}
