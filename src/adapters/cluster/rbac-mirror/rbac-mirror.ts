// The RBAC mirror: the embedded RBAC evaluator (src/adapters/local/rbac) over the informer caches
// of rbac-informers.ts instead of a cluster-state file, answering exactly what kube-apiserver's RBAC
// authorizer answers from its own informers — privileged group first, ClusterRoles' rules as
// stored (already aggregated by the controller), no deny. Only while every cache follows the server
// may it answer at all; while one is relisting after an error, it says so and the caller asks the
// API server instead.
//
// The evaluator indexes bindings by subject once, so it is rebuilt from the caches after they
// change — once the changes stop for a moment (the four caches list one after another, an
// operator's install delivers a few dozen), at the latest a fixed time after the first, and never
// more often than a fixed rate. A rebuild walks every cached object (tens of milliseconds for 10,000 RoleBindings),
// so it never runs on a request's path, and
// until it has run the mirror answers nothing: an answer never lags an event the caches have
// received, and a question asked meanwhile goes to SubjectAccessReview. Each evaluator's verdicts
// are kept until the next rebuild, under the keys the SubjectAccessReview cache uses: a narrowly
// scoped user's request asks a dozen questions, nearly all asked before.
import type { AuthorizationAttributes, AuthorizationResult } from '../../../ports/authorizer.ts';
import { type Clock, systemClock } from '../../../ports/clock.ts';
import type { ClosestGrant } from '../../../ports/grants.ts';
import { createRbacAuthorizer, type RbacAuthorizer } from '../../local/rbac/index.ts';
import { ReviewKeys } from '../authorization/review-keys.ts';
import { TtlCache } from '../client/ttl-cache.ts';
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
  /**
   * The requester's nearest existing grant, from the evaluator's objects, for explaining a denial;
   * none while the mirror is not in sync (it would name a grant the cluster may no longer hold).
   */
  closestGrant(attributes: AuthorizationAttributes): ClosestGrant | undefined;
  /** Marks the caches changed: the evaluator is rebuilt shortly, and answers nothing until then. */
  invalidate(): void;
  /** Whether the evaluator has been built once (from caches that had all listed). */
  readonly built: boolean;
  /** Resolves when the evaluator is first built. */
  whenBuilt(): Promise<void>;
}

export interface RbacMirrorOptions {
  informers: Pick<RbacInformers, 'objects' | 'counts' | 'inSync'>;
  clock?: Clock;
  /** Rebuild once no change has arrived for this long (default 20 ms)... */
  rebuildQuietMs?: number;
  /** ...or this long after the first change still waiting, whichever comes first (default 250 ms)... */
  rebuildMaxDelayMs?: number;
  /** ...but never sooner than this after the previous rebuild (default 250 ms: at most four a second). */
  rebuildMinIntervalMs?: number;
  /** Verdicts kept per evaluator (least recently used dropped first; default 8192, in 16 MiB of keys). */
  cacheSize?: number;
  /** Each rebuild of the evaluator, for metrics. */
  rebuilt?(observation: { durationSeconds: number }): void;
}

export const answeredByMirror = 'rbac-mirror';

export function createRbacMirror(options: RbacMirrorOptions): RbacMirror {
  const {
    informers,
    clock = systemClock,
    rebuilt,
    rebuildQuietMs = 20,
    rebuildMaxDelayMs = 250,
    rebuildMinIntervalMs = 250,
    cacheSize = 8192,
  } = options;
  const keys = new ReviewKeys(cacheSize);
  // Valid for as long as the evaluator that gave them: cleared at every rebuild.
  const verdicts = new TtlCache<MirrorVerdict>(cacheSize, 16 * 1024 * 1024);
  let evaluator: RbacAuthorizer | undefined;
  let stale = true;
  let firstPending: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let lastRebuild = Number.NEGATIVE_INFINITY;
  let firstBuilt!: () => void;
  const built = new Promise<void>((resolve) => (firstBuilt = resolve));

  function rebuild(): void {
    timer = undefined;
    firstPending = undefined;
    // A cache still (re)listing will change again when it has listed; its LIST schedules the rebuild.
    if (!informers.inSync) return;
    const started = clock.now();
    lastRebuild = started;
    evaluator = createRbacAuthorizer(informers.objects(), { aggregation: 'as-stored' });
    verdicts.clear();
    stale = false;
    rebuilt?.({ durationSeconds: (clock.now() - started) / 1000 });
    firstBuilt();
  }

  /** The evaluator, while it reflects every change the caches have received and they all follow the server. */
  function current(): RbacAuthorizer | undefined {
    return stale || !informers.inSync ? undefined : evaluator;
  }

  return {
    get inSync() {
      return current() !== undefined;
    },
    counts: () => informers.counts(),
    get built() {
      return evaluator !== undefined;
    },
    whenBuilt: () => built,
    invalidate() {
      stale = true;
      const now = clock.now();
      firstPending ??= now;
      const earliest = lastRebuild + rebuildMinIntervalMs;
      const latest = Math.max(earliest, firstPending + rebuildMaxDelayMs);
      const due = Math.min(Math.max(now + rebuildQuietMs, earliest), latest);
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(rebuild, Math.max(0, due - now)).unref();
    },
    closestGrant(attributes) {
      return current()?.grants.closestGrant(attributes);
    },
    evaluate(attributes) {
      const rbac = current();
      if (rbac === undefined) return 'not-synced';
      const key = keys.keyFor(attributes);
      const known = verdicts.entry(key.family, 0, key.name)?.value;
      if (known !== undefined) return known;
      const result = rbac.evaluate(attributes);
      const verdict: MirrorVerdict =
        result.decision === 'allow'
          ? Object.freeze({ allowed: Object.freeze({ ...result, answeredBy: answeredByMirror }) })
          : 'not-allowed';
      verdicts.set(key.family, verdict, Number.POSITIVE_INFINITY, 0, key.name);
      return verdict;
    },
  };
}
