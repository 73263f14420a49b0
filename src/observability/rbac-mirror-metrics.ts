// The RBAC mirror's metrics (--authorizer=rbac-mirror only): which questions it answered and which
// went to SubjectAccessReview (and why), whether it is in sync, how many objects it holds, how long
// rebuilding its evaluator takes. Its four informers count in the lookup caches' informer metrics,
// under their own resource label (roles, clusterroles, rolebindings, clusterrolebindings).
import { Gauge, Histogram, type Registry } from 'prom-client';
import type { RbacMirrorState } from '../adapters/cluster/rbac-mirror/rbac-mirror.ts';
import type { RbacMirrorRecorder } from '../adapters/cluster/rbac-mirror/rbac-mirror-authorizer.ts';
import { type RbacResource, rbacResources } from '../adapters/cluster/rbac-mirror/rbac-resources.ts';
import { HotCounter } from './hot-metrics.ts';
import { informerRecorder, type LookupMetrics } from './lookup-metrics.ts';

// A rebuild walks every cached object: milliseconds for a small cluster, tens of them for 10,000 bindings.
const rebuildBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

export function rbacMirrorRecorder(registry: Registry, informers: LookupMetrics, now: () => number = Date.now): RbacMirrorRecorder {
  const registers = [registry];
  let state: RbacMirrorState | undefined;
  // Recorded for every authorization question, a dozen per request for a narrowly scoped user.
  const questions = new HotCounter({
    name: 'admission_chain_rbac_mirror_questions_total',
    help: 'Authorization questions put to the RBAC mirror, by result: allowed (answered by the mirror, no SubjectAccessReview), not-allowed or not-synced (both sent to SubjectAccessReview).',
    labelNames: ['result'],
    registers,
  });
  // Present at zero from the start, so the share the mirror answers is defined before the first miss.
  for (const result of ['allowed', 'not-allowed', 'not-synced']) questions.inc({ result }, 0);
  new Gauge({
    name: 'admission_chain_rbac_mirror_synced',
    help: '1 while every RBAC mirror informer follows the API server (the mirror may answer), 0 while one has not listed or is relisting (every question goes to SubjectAccessReview).',
    registers,
    collect() {
      this.set(state?.inSync ? 1 : 0);
    },
  });
  new Gauge({
    name: 'admission_chain_rbac_mirror_objects',
    help: 'Objects the RBAC mirror holds, by resource (roles, clusterroles, rolebindings, clusterrolebindings).',
    labelNames: ['resource'],
    registers,
    collect() {
      const counts = state?.counts();
      for (const resource of rbacResources) this.set({ resource }, counts?.[resource] ?? 0);
    },
  });
  const rebuilds = new Histogram({
    name: 'admission_chain_rbac_mirror_rebuild_duration_seconds',
    help: "Time to rebuild the RBAC mirror's evaluator from its caches after they changed, in seconds.",
    buckets: rebuildBuckets,
    registers,
  });
  return {
    track: (tracked) => {
      state = tracked;
    },
    question: (result) => questions.inc({ result }),
    rebuilt: ({ durationSeconds }) => rebuilds.observe(durationSeconds),
    ...informerRecorder<RbacResource>(informers, now),
  };
}
