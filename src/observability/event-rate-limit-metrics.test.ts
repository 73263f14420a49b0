// EventRateLimit's refusals reach /metrics by limit type, through the chain the composition root
// builds: the plugin is handed the recorder, the counter starts at zero for every type.
import { describe, expect, it } from 'vitest';
import { attributesRecord, deadlineOf } from '../../test/support/attributes.ts';
import { parseClusterState } from '../adapters/local/cluster-state.ts';
import { definition } from '../plugins/eventratelimit/index.ts';
import { silentLogger } from '../ports/logger.ts';
import { buildChain } from '../wiring/chain.ts';
import { createLocalBackend } from '../wiring/local.ts';
import { createMetrics } from './metrics.ts';

const limits = [
  { type: 'Server', qps: 1, burst: 3 },
  { type: 'Namespace', qps: 1, burst: 1 },
];
const configuration = {
  source: 'test',
  documents: [{ apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration', limits }],
};

describe('admission_chain_event_rate_limit_reached_total', () => {
  it('counts each limit that refused, by type', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const chain = buildChain({
      enabled: [definition],
      modes: {},
      backend: createLocalBackend(parseClusterState(''), silentLogger),
      metrics,
      configuration: { for: (name) => (name === 'EventRateLimit' ? configuration : undefined) },
    });
    const event = (namespace: string) =>
      attributesRecord(
        { kind: 'Event' },
        { kind: { group: '', version: 'v1', kind: 'Event' }, resource: { group: '', version: 'v1', resource: 'events' }, namespace },
      );
    const codes: Array<number | undefined> = [];
    for (const namespace of ['a', 'a', 'b', 'b']) codes.push((await chain.validate(event(namespace), deadlineOf())).rejection?.code);
    expect(codes).toEqual([undefined, 429, undefined, 429]);
    const counted = (await metrics.registry.getSingleMetric('admission_chain_event_rate_limit_reached_total')!.get()).values;
    expect(Object.fromEntries(counted.map((v) => [v.labels.type, v.value]))).toEqual({
      Server: 1,
      Namespace: 2,
      User: 0,
      SourceAndObject: 0,
    });
  });
});
