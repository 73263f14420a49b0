// The observers the cluster adapters accept, gathered so the wiring can hand Prometheus-backed
// implementations to each (see metrics.ts); every one is optional.
import type { ClusterAuthorizerMetrics } from '../adapters/cluster/authorizer.ts';
import type { LookupRecorder } from '../adapters/cluster/lookups.ts';

export interface ClusterObservers {
  authorizer?: ClusterAuthorizerMetrics;
  lookups?: LookupRecorder;
}
