// The RBAC mirror: the embedded RBAC evaluator (src/adapters/local/rbac) over the informer caches
// of rbac-informers.ts instead of a cluster-state file, answering exactly what kube-apiserver's RBAC
// authorizer answers from its own informers — privileged group first, ClusterRoles' rules as
// stored (already aggregated by the controller), no deny. Only while every cache follows the server
// may it answer at all; while one is relisting after an error, it says so and the caller asks the
// API server instead.
//
// The evaluator indexes bindings by subject once, so it is rebuilt from the caches whenever they
// change: right after a burst of events (a LIST delivers thousands at once) and, should a question
// arrive before that, at the question — an answer never lags an event the caches have received.
import type { AuthorizationAttributes, AuthorizationResult } from '../../ports/authorizer.ts';
import { systemClock, type Clock } from '../../ports/clock.ts';
import { createRbacAuthorizer, type RbacAuthorizer } from '../local/rbac/index.ts';
import type { RbacInformers } from './rbac-informers.ts';
import type { RbacResource } from './rbac-resources.ts';

/** What the mirror says about one question. */
export type MirrorVerdict = { readonly allowed: AuthorizationResult } | 'not-allowed' | 'not-synced';

export interface RbacMirrorState {
  readonly inSync: boolean;
  counts(): Record<RbacResource, number>;
}

export interface RbacMirror extends RbacMirrorState {
  evaluate(attributes: AuthorizationAttributes): MirrorVerdict;
  /** Marks the caches changed: the evaluator is rebuilt before its next answer. */
  invalidate(): void;
}

export interface RbacMirrorOptions {
  informers: Pick<RbacInformers, 'objects' | 'counts' | 'inSync'>;
  clock?: Clock;
  /** Each rebuild of the evaluator, for metrics. */
  rebuilt?(observation: { durationSeconds: number }): void;
}

export const answeredByMirror = 'rbac-mirror';

export function createRbacMirror(options: RbacMirrorOptions): RbacMirror {
  const { informers, clock = systemClock, rebuilt } = options;
  let evaluator: RbacAuthorizer | undefined;
  let stale = true;
  let scheduled: NodeJS.Immediate | undefined;

  function rebuild(): RbacAuthorizer {
    const started = clock.now();
    stale = false;
    evaluator = createRbacAuthorizer(informers.objects(), { aggregation: 'as-stored' });
    rebuilt?.({ durationSeconds: (clock.now() - started) / 1000 });
    return evaluator;
  }

  return {
    get inSync() {
      return informers.inSync;
    },
    counts: () => informers.counts(),
    invalidate() {
      stale = true;
      // One rebuild after the burst, off the request path (a LIST calls this once per object).
      scheduled ??= setImmediate(() => {
        scheduled = undefined;
        if (stale && informers.inSync) rebuild();
      }).unref();
    },
    evaluate(attributes) {
      if (!informers.inSync) return 'not-synced';
      const current = stale || evaluator === undefined ? rebuild() : evaluator;
      const result = current.evaluate(attributes);
      return result.decision === 'allow' ? { allowed: { ...result, answeredBy: answeredByMirror } } : 'not-allowed';
    },
  };
}
