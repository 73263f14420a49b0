// EventRateLimit's refusals by limit type: which of the configured limits is turning events away
// (a storm from one namespace, one user, one misbehaving source) before the count of 429s says so.
import { Counter, type Registry } from 'prom-client';
import type { EventRateLimitRecorder, EventRateLimitType } from '../ports/recorders.ts';

const limitTypes: readonly EventRateLimitType[] = ['Server', 'Namespace', 'User', 'SourceAndObject'];

export function eventRateLimitRecorder(registry: Registry): EventRateLimitRecorder {
  const reached = new Counter({
    name: 'admission_chain_event_rate_limit_reached_total',
    help: 'Event writes EventRateLimit found over a limit, by limit type (an event over two limits counts for both).',
    labelNames: ['type'],
    registers: [registry],
  });
  // Present at zero from the start, so rates are defined before the first refusal.
  for (const type of limitTypes) reached.inc({ type }, 0);
  return { limitReached: (type) => reached.inc({ type }) };
}
