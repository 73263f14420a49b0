// EventRateLimit (upstream plugin/pkg/admission/eventratelimit): caps how fast core Events may be
// written — server-wide, per namespace, per user, per event source and involved object — so an event
// storm (a crash-looping controller, a flood of failing pods) cannot overload the API server and
// etcd. Each limit is a token bucket kept in this process's memory, as upstream keeps it in each API
// server's; a write that finds any of its buckets empty is refused with 429 Too Many Requests.
import type { Attributes } from '../../admission/attributes.ts';
import { Operation } from '../../admission/operation.ts';
import type { AdmissionPlugin, PluginDefinition } from '../../admission/plugin.ts';
import { aggregateMessage } from '../../api/aggregate.ts';
import { tooManyRequests } from '../../api/status-error.ts';
import type { Clock } from '../../ports/clock.ts';
import type { EventRateLimitRecorder } from '../../ports/recorders.ts';
import { type EventRateLimitConfiguration, parseConfiguration } from './configuration.ts';
import { type LimitEnforcer, limitEnforcer } from './limit-enforcer.ts';

export const pluginName = 'EventRateLimit';

export const definition: PluginDefinition<never> = {
  name: pluginName,
  needs: [],
  create: (ports) =>
    eventRateLimit(parseConfiguration(ports.configuration?.for(pluginName), pluginName), ports.clock, ports.recorders?.eventRateLimit),
};

/** The plugin over a configuration already validated (upstream newEventRateLimit: its tests pass none). */
export function eventRateLimit(
  configuration: EventRateLimitConfiguration,
  clock: Clock,
  recorder?: EventRateLimitRecorder,
): AdmissionPlugin & { readonly enforcers: readonly LimitEnforcer[] } {
  const enforcers = (configuration.limits ?? []).map((limit) => limitEnforcer(limit, clock));
  return {
    name: pluginName,
    enforcers,
    // Upstream's handler: creates and updates (an event recorder's patch of a repeated event is an update).
    handles: (operation) => operation === Operation.Create || operation === Operation.Update,
    validate(attributes) {
      if (!isCoreEvent(attributes) || attributes.dryRun) return;
      // Every limit draws its token, even after one has refused: upstream asks each in turn.
      const refusals: string[] = [];
      for (const enforcer of enforcers) {
        const refusal = enforcer.accept(attributes);
        if (refusal === undefined) continue;
        refusals.push(refusal);
        recorder?.limitReached(enforcer.type);
      }
      if (refusals.length > 0) throw tooManyRequests(aggregateMessage(refusals));
    },
  };
}

/** The kind the request was made as is the core group's Event (an events.k8s.io Event is not). */
function isCoreEvent(attributes: Attributes): boolean {
  const kind = attributes.requestKind ?? attributes.kind;
  return kind.group === '' && kind.kind === 'Event';
}
