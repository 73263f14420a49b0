// One admission call, end to end: decoded request → attributes → chain phase → AdmissionResponse
// (controller-runtime's typed handle() and complete()). Mutations are made on a copy and sent as
// one JSONPatch against the request's object; no patch when nothing changed.
import type { KubeObject, Status } from '../api/types.ts';
import type { Attributes } from './attributes.ts';
import type { AdmissionChain, Phase, PhaseOutcome } from './chain.ts';
import { abortedError } from './errors.ts';
import { internalError, isStatusError, type StatusError } from '../api/status-error.ts';
import { attributesFrom, type AdmissionRequest, type AdmissionResponse } from './review.ts';
import { isPromiseLike } from '../util/maybe-async.ts';
import { raceWithSignal } from '../util/signals.ts';

export interface HandledReview {
  response: AdmissionResponse;
  /** The object after mutation (admit phase only), for callers that chain phases. */
  mutatedObject?: KubeObject | undefined;
  rejectedBy?: string;
  outcome: PhaseOutcome;
}

/**
 * `expiresAt` is the request's deadline on performance.now()'s clock, for synchronous work to check
 * (the signal's own timer fires only between turns of the event loop).
 */
export async function handleAdmission(chain: AdmissionChain, phase: Phase, request: AdmissionRequest, signal: AbortSignal, expiresAt = Number.POSITIVE_INFINITY): Promise<HandledReview> {
  try {
    return await handle(chain, phase, request, signal, expiresAt);
  } catch (thrown) {
    // The last safety net: whatever failed (an object nested too deeply to copy or diff, a bug
    // here), the caller still gets an answer that echoes the uid, and it is a denial.
    const error = isStatusError(thrown) ? thrown : internalError(messageOf(thrown), thrown);
    const outcome: PhaseOutcome = { rejection: error, warnings: [], annotations: {} };
    return { response: { uid: request.uid, allowed: false, status: statusOf(error) }, outcome };
  }
}

async function handle(chain: AdmissionChain, phase: Phase, request: AdmissionRequest, signal: AbortSignal, expiresAt: number): Promise<HandledReview> {
  const original = request.object ?? undefined;
  // Only what mutating plugins may change is copied; the rest is shared with the request's object.
  const working = phase === 'admit' && original !== undefined ? chain.mutationScope.copy(original) : original;
  const attributes: Attributes = attributesFrom(request, working);
  let outcome: PhaseOutcome;
  try {
    const running = phase === 'admit' ? chain.admit(attributes, signal, expiresAt) : chain.validate(attributes, signal, expiresAt);
    // A chain that finished synchronously needs no race against the deadline.
    outcome = isPromiseLike(running) ? await withDeadline(Promise.resolve(running), signal) : running;
  } catch (thrown) {
    const error = isStatusError(thrown) ? thrown : internalError(messageOf(thrown), thrown);
    outcome = { rejection: error, warnings: [], annotations: {} };
  }
  // The answer is late already: no diff for a caller that has stopped waiting.
  if (outcome.rejection === undefined && phase === 'admit' && performance.now() >= expiresAt) {
    outcome = { rejection: abortedError(new DOMException('deadline', 'TimeoutError')), warnings: [], annotations: {} };
  }
  const response: AdmissionResponse = { uid: request.uid, allowed: outcome.rejection === undefined };
  if (outcome.rejection) {
    response.status = statusOf(outcome.rejection);
  } else if (phase === 'admit') {
    const patch = original === undefined || attributes.object === undefined ? [] : chain.mutationScope.patch(original, attributes.object);
    if (patch.length > 0) {
      response.patch = Buffer.from(JSON.stringify(patch)).toString('base64');
      response.patchType = 'JSONPatch';
    }
  }
  if (outcome.warnings.length > 0) response.warnings = outcome.warnings;
  if (Object.keys(outcome.annotations).length > 0) response.auditAnnotations = outcome.annotations;
  const handled: HandledReview = { response, outcome };
  if (outcome.rejectedBy !== undefined) handled.rejectedBy = outcome.rejectedBy;
  if (phase === 'admit' && !outcome.rejection) handled.mutatedObject = attributes.object;
  return handled;
}

function messageOf(thrown: unknown): string {
  if (thrown instanceof RangeError && /call stack/i.test(thrown.message)) return 'object is nested too deeply to process';
  return thrown instanceof Error ? thrown.message : String(thrown);
}

export function statusOf(error: StatusError): Status {
  return { metadata: {}, ...error.status };
}

/** Guarantees an answer by the deadline even if a plugin ignores its signal. */
function withDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return raceWithSignal(work, signal).catch((error: unknown) => {
    throw signal.aborted ? abortedError(signal.reason) : error;
  });
}
