// Metrics and the request log wrap the typed handler from outside (upstream's WithStepMetrics):
// the step is timed from the decoded request to the AdmissionResponse, as upstream times the
// admission chain's phase, and the handler never knows it is watched. They are recorded once the
// answer has been written, so the caller never waits on a log line.
import type { Phase } from '../admission/chain.ts';
import type { AdmissionHandler, HandledReview } from '../admission/handler.ts';
import type { AdmissionRequest } from '../admission/review.ts';
import type { AdmissionMetrics } from '../observability/metrics.ts';
import type { Logger } from '../ports/logger.ts';

export type Webhook = 'mutate' | 'validate';

export interface ObservedHandlerOptions {
  webhook: Webhook;
  phase: Phase;
  metrics: AdmissionMetrics;
  logger: Logger;
}

export function observedHandler(handler: AdmissionHandler, options: ObservedHandlerOptions): AdmissionHandler {
  const { webhook, metrics } = options;
  return async (request, deadline) => {
    metrics.inFlight[webhook]! += 1;
    const started = performance.now();
    let handled: HandledReview;
    try {
      handled = await handler(request, deadline);
    } finally {
      metrics.inFlight[webhook]! -= 1;
    }
    const seconds = (performance.now() - started) / 1000;
    setImmediate(record, request, handled, seconds, options);
    return handled;
  };
}

function record(request: AdmissionRequest, handled: HandledReview, seconds: number, options: ObservedHandlerOptions): void {
  const { metrics, webhook } = options;
  const { response } = handled;
  const code = response.status?.code ?? 200;
  metrics.stepDuration.observe({ type: options.phase, operation: request.operation, rejected: String(!response.allowed) }, seconds);
  metrics.requests.inc({ webhook, operation: request.operation, allowed: String(response.allowed), code: String(code) });
  for (const { plugin, mode } of handled.outcome.nonEnforced ?? []) metrics.nonEnforcedRejections.inc({ name: plugin, mode });
  const internal = response.status?.reason === 'InternalError';
  if (internal) metrics.internalErrors.inc({ webhook });
  // Failures at error, denials at info, allowed requests at debug (what Gatekeeper and
  // controller-runtime do): at thousands of requests a second, a line for every allowed one
  // costs a tenth of the throughput and floods the log pipeline; the metrics count them all.
  // A request admitted only because a plugin runs in warn or audit mode is logged at info: it
  // is what a rollout in warn mode is watched for.
  const notEnforced = handled.outcome.nonEnforced?.map(({ plugin, mode }) => `${plugin}:${mode}`);
  const level = internal ? 'error' : !response.allowed || notEnforced !== undefined ? 'info' : 'debug';
  const { logger } = options;
  if (!logger.isLevelEnabled(level)) return;
  // The request's fields lead the line (as a child logger's bindings would, without building one).
  const fields = {
    ...requestFields(webhook, request),
    decision: response.allowed ? 'allowed' : 'denied',
    code,
    patched: response.patch !== undefined,
    rejectedBy: handled.rejectedBy,
    warnings: response.warnings?.length,
    notEnforced,
    // Which plugins were skipped for this request, and the exemption rule that matched for each.
    exempted: exemptedFields(handled),
    durationMs: Math.round(seconds * 1e6) / 1e3,
  };
  // A rejection's explanation (the Role and binding that would grant it, as YAML) rides along.
  const explanation = handled.outcome.explanations?.map((e) => e.explained.text).join('---\n');
  if (internal) logger.error({ ...fields, reason: loggedReason(response.status?.message) }, 'admission failed');
  else if (!response.allowed) logger.info({ ...fields, reason: loggedReason(response.status?.message), explanation }, 'admission denied');
  else if (notEnforced !== undefined) logger.info({ ...fields, explanation }, 'admission allowed; a rejection was not enforced');
  else logger.debug(fields, 'admission allowed');
}

function exemptedFields(handled: HandledReview): Record<string, string> | undefined {
  const exempted = handled.outcome.exempted;
  if (exempted === undefined) return undefined;
  return Object.fromEntries(exempted.map(({ plugin, rule }) => [plugin, rule]));
}

/** Longer denial messages are cut in the log (the answer keeps them whole). */
export const maxLoggedReasonLength = 2048;

/**
 * A denial's message for the log line: a pod with 50,000 containers is denied with a 7 MB message,
 * which the caller gets whole but a log pipeline should not, once per attempt.
 */
function loggedReason(message: string | undefined): string | undefined {
  if (message === undefined || message.length <= maxLoggedReasonLength) return message;
  return `${message.slice(0, maxLoggedReasonLength)}… (${message.length} characters in all)`;
}

/** Who asked what, for the request's log line (never the object, which may carry secrets). */
function requestFields(webhook: string, request: AdmissionRequest): Record<string, unknown> {
  return {
    uid: request.uid,
    webhook,
    kind: request.kind.kind,
    resource: request.resource.resource,
    subresource: request.subResource,
    namespace: request.namespace,
    name: request.name,
    operation: request.operation,
    user: request.userInfo?.username,
  };
}
