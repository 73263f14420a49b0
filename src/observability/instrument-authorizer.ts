// Wraps the Authorizer port from outside: what plugins were told and how long they waited, the
// same for the embedded RBAC evaluator and the cluster's SubjectAccessReview (whose wire-level
// calls, cache and singleflight are counted by the adapter through authorizationRecorder).
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../ports/authorizer.ts';
import type { AuthorizationMetrics } from './authorization-metrics.ts';

export function instrumentAuthorizer(
  authorizer: Authorizer,
  metrics: AuthorizationMetrics,
  now: () => number = () => performance.now(),
): Authorizer {
  return {
    async authorize(attributes: AuthorizationAttributes, signal?: AbortSignal): Promise<AuthorizationResult> {
      const started = now();
      const result = await authorizer.authorize(attributes, signal);
      metrics.decisions.inc({ decision: result.decision });
      metrics.decisionDuration.observe({ decision: result.decision }, (now() - started) / 1000);
      return result;
    },
  };
}
