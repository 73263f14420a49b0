// Wraps the Authorizer port from outside: what plugins were told and how long they waited, the
// same for the embedded RBAC evaluator and the cluster's SubjectAccessReview (whose wire-level
// calls, cache and singleflight are counted by the adapter through authorizationRecorder).
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../ports/authorizer.ts';
import { isPromiseLike } from '../util/maybe-async.ts';
import type { AuthorizationMetrics } from './authorization-metrics.ts';

export function instrumentAuthorizer(
  authorizer: Authorizer,
  metrics: AuthorizationMetrics,
  now: () => number = () => performance.now(),
): Authorizer {
  const record = (result: AuthorizationResult, waitedSeconds: number): AuthorizationResult => {
    metrics.decisions.inc({ decision: result.decision });
    metrics.decisionDuration.observe({ decision: result.decision }, waitedSeconds);
    return result;
  };
  return {
    authorize(attributes: AuthorizationAttributes, signal?: AbortSignal): AuthorizationResult | Promise<AuthorizationResult> {
      const answer = authorizer.authorize(attributes, signal);
      // An answer at hand (a cached SubjectAccessReview) kept the plugin waiting for no
      // time at all: it is recorded as 0 — the histogram's first bucket is a millisecond — without
      // reading the clock, which would be a tenth of such an answer's cost. A pending answer is
      // timed from here until it settles, followed with then() rather than an async wrapper.
      if (!isPromiseLike(answer)) return record(answer, 0);
      const started = now();
      return answer.then((result) => record(result, (now() - started) / 1000));
    },
  };
}
