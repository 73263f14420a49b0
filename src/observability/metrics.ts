// Prometheus metrics in kube-apiserver's admission vocabulary, under our own prefix, on one
// injected Registry (no global state). Labels stay bounded: never uid, name, namespace or user.
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { AuthorizationRecorder, DiscoveryRecorder, InformerRecorder, LookupRecorder, PluginRecorders } from '../ports/recorders.ts';
import { type AuthorizationMetrics, authorizationRecorder, createAuthorizationMetrics } from './authorization-metrics.ts';
import { createDiscoveryMetrics, type DiscoveryMetrics, discoveryRecorder } from './discovery-metrics.ts';
import { eventRateLimitRecorder } from './event-rate-limit-metrics.ts';
import { HotCounter, HotHistogram } from './hot-metrics.ts';
import { imagePolicyWebhookRecorder } from './image-policy-metrics.ts';
import { createLookupMetrics, informerRecorder, type LookupMetrics, lookupRecorder } from './lookup-metrics.ts';

// Upstream's admission buckets (0.005 … 2.5 s) plus finer sub-millisecond ones: we are in-process.
export const admissionBuckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.025, 0.1, 0.5, 1.0, 2.5];

export interface AdmissionMetrics {
  readonly registry: Registry;
  // Recorded on every request (or several times per request): hot-metrics.ts, prom-client's format.
  readonly stepDuration: HotHistogram<'type' | 'operation' | 'rejected'>;
  readonly controllerDuration: HotHistogram<'name' | 'type' | 'operation' | 'rejected'>;
  readonly requests: HotCounter<'webhook' | 'operation' | 'allowed' | 'code'>;
  /** Requests being handled now, per webhook; plain counters read at scrape time, not per request. */
  readonly inFlight: Record<string, number>;
  /** The in-flight limit's state, read at scrape time from what the webhook sets here. */
  readonly load: { source?: { inFlightBytes(): number; waiting(): number } };
  readonly nonEnforcedRejections: Counter<'name' | 'mode'>;
  readonly pluginPaths: HotCounter<'name' | 'path'>;
  readonly certificateExpiry: Gauge;
  readonly certificateReloads: Counter<'result'>;
  /** Requests refused before admission because of what they are (HTTP 4xx), by reason. */
  readonly badRequests: Counter<'webhook' | 'reason'>;
  /** Requests refused before admission because the webhook had no room for them before their deadline (HTTP 503). */
  readonly unavailableRequests: Counter<'webhook' | 'reason'>;
  /** Connections closed on arrival because --max-connections were open. */
  readonly droppedConnections: Counter;
  /** TLS handshakes that failed: no or a wrong client certificate, a protocol or cipher we do not speak, a timeout. */
  readonly tlsHandshakeFailures: Counter;
  /**
   * Answers that are internal errors (Status reason InternalError: a crashed plugin, a deadline,
   * a failed backend). Separate from the code label because upstream-exact policy denials can
   * carry code 500 too (AlwaysPullImages' aggregated Forbidden), and those are not failures.
   */
  readonly internalErrors: Counter<'webhook'>;
  readonly authorization: AuthorizationMetrics;
  readonly discovery: DiscoveryMetrics;
  readonly lookups: LookupMetrics;
  /** What the adapters take (their optional `metrics` options), backed by the metrics above. */
  readonly recorders: {
    readonly authorization: AuthorizationRecorder;
    readonly discovery: DiscoveryRecorder;
    readonly lookups: LookupRecorder;
    readonly informers: InformerRecorder;
    /** What the plugins observe of their own decisions (Ports.recorders). */
    readonly plugins: PluginRecorders;
  };
}

export function createMetrics(options: { registry?: Registry; defaultMetrics?: boolean } = {}): AdmissionMetrics {
  const registry = options.registry ?? new Registry();
  if (options.defaultMetrics ?? true) collectDefaultProcessMetrics(registry);
  const authorization = createAuthorizationMetrics(registry);
  const discovery = createDiscoveryMetrics(registry);
  const lookups = createLookupMetrics(registry);
  const internalErrors = new Counter({
    name: 'admission_chain_internal_errors_total',
    help: 'Requests answered with an internal error: AdmissionReviews with Status reason InternalError, and unexpected errors before admission (HTTP 500), by webhook.',
    labelNames: ['webhook'],
    registers: [registry],
  });
  // Present at zero from the start, so error ratios are defined before the first failure.
  for (const webhook of ['mutate', 'validate']) internalErrors.inc({ webhook }, 0);
  const inFlight: Record<string, number> = { mutate: 0, validate: 0 };
  new Gauge({
    name: 'admission_chain_requests_in_flight',
    help: 'AdmissionReview requests being handled now.',
    labelNames: ['webhook'],
    registers: [registry],
    collect() {
      for (const [webhook, count] of Object.entries(inFlight)) this.set({ webhook }, count);
    },
  });
  const load: AdmissionMetrics['load'] = {};
  new Gauge({
    name: 'admission_chain_in_flight_request_bytes',
    help: 'Heap the requests being handled are estimated to hold (from their bodies), against --max-in-flight-bytes.',
    registers: [registry],
    collect() {
      this.set(load.source?.inFlightBytes() ?? 0);
    },
  });
  new Gauge({
    name: 'admission_chain_requests_waiting',
    help: 'Requests waiting for room under the in-flight limit (they wait until their deadline at most).',
    registers: [registry],
    collect() {
      this.set(load.source?.waiting() ?? 0);
    },
  });
  return {
    registry,
    internalErrors,
    load,
    authorization,
    discovery,
    lookups,
    recorders: {
      authorization: authorizationRecorder(authorization),
      discovery: discoveryRecorder(discovery),
      lookups: lookupRecorder(lookups),
      informers: informerRecorder(lookups),
      plugins: { eventRateLimit: eventRateLimitRecorder(registry), imagePolicyWebhook: imagePolicyWebhookRecorder(registry) },
    },
    stepDuration: new HotHistogram({
      name: 'admission_chain_step_admission_duration_seconds',
      help: 'Admission sub-step latency in seconds, by phase (admit or validate), operation and whether it was rejected.',
      labelNames: ['type', 'operation', 'rejected'],
      buckets: admissionBuckets,
      registers: [registry],
    }),
    controllerDuration: new HotHistogram({
      name: 'admission_chain_controller_admission_duration_seconds',
      help: 'Admission plugin latency in seconds, by plugin, phase, operation and whether it rejected.',
      labelNames: ['name', 'type', 'operation', 'rejected'],
      buckets: admissionBuckets,
      registers: [registry],
    }),
    requests: new HotCounter({
      name: 'admission_chain_requests_total',
      help: 'AdmissionReview requests answered, by webhook, operation, decision and status code.',
      labelNames: ['webhook', 'operation', 'allowed', 'code'],
      registers: [registry],
    }),
    inFlight,
    nonEnforcedRejections: new Counter({
      name: 'admission_chain_non_enforced_rejections_total',
      help: 'Rejections by plugins in warn or audit mode that were admitted anyway.',
      labelNames: ['name', 'mode'],
      registers: [registry],
    }),
    pluginPaths: new HotCounter({
      name: 'admission_chain_plugin_decision_path_total',
      help: 'Which decision path a plugin took (e.g. OwnerReferencesPermissionEnforcement: whitelisted, unchanged, no-new-blocking-refs, wildcard-probe, per-reference).',
      labelNames: ['name', 'path'],
      registers: [registry],
    }),
    certificateExpiry: new Gauge({
      name: 'admission_chain_tls_certificate_expiry_timestamp_seconds',
      help: 'When the serving certificate in use expires, as a Unix timestamp in seconds.',
      registers: [registry],
    }),
    certificateReloads: new Counter({
      name: 'admission_chain_tls_certificate_reloads_total',
      help: 'Serving certificate reloads, by result (success or error).',
      labelNames: ['result'],
      registers: [registry],
    }),
    droppedConnections: new Counter({
      name: 'admission_chain_dropped_connections_total',
      help: 'Webhook connections closed on arrival because the most allowed (--max-connections) were open.',
      registers: [registry],
    }),
    tlsHandshakeFailures: new Counter({
      name: 'admission_chain_tls_handshake_failures_total',
      help: 'Failed TLS handshakes on the webhook port (a missing or untrusted client certificate among them).',
      registers: [registry],
    }),
    badRequests: new Counter({
      name: 'admission_chain_bad_requests_total',
      help: 'Requests refused before admission (HTTP 4xx), by webhook and reason class.',
      labelNames: ['webhook', 'reason'],
      registers: [registry],
    }),
    unavailableRequests: new Counter({
      name: 'admission_chain_unavailable_requests_total',
      help: 'Requests refused before admission with 503: no room in the in-flight limit before their deadline, by webhook and reason.',
      labelNames: ['webhook', 'reason'],
      registers: [registry],
    }),
  };
}

/**
 * prom-client's default process and Node.js metrics, minus the three gauges it names with a
 * `_total` suffix (nodejs_active_{handles,requests,resources}_total): `promtool check metrics`
 * rejects a non-counter ending in `_total`, and the same numbers stay available, split by type,
 * as nodejs_active_handles, nodejs_active_requests and nodejs_active_resources.
 */
export function collectDefaultProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of misnamedDefaultGauges) registry.removeSingleMetric(name);
}

const misnamedDefaultGauges = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];
