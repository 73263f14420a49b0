// One admission call, end to end: decoded request → attributes → chain phase → AdmissionResponse
// (controller-runtime's typed handle() and complete()). Mutations are made on a copy and sent as
// one JSONPatch against the request's object; no patch when nothing changed.
import fastJsonPatch from 'fast-json-patch';
import type { KubeObject, Status } from '../api/types.ts';
import type { Attributes } from './attributes.ts';
import type { AdmissionChain, Phase, PhaseOutcome } from './chain.ts';
import { abortedError, internalError, isStatusError, type StatusError } from './errors.ts';
import { attributesFrom, type AdmissionRequest, type AdmissionResponse } from './review.ts';
import { cloneJson } from '../util/clone-json.ts';
import { isPromiseLike } from '../util/maybe-async.ts';
import { raceWithSignal } from '../util/signals.ts';

export interface HandledReview {
  response: AdmissionResponse;
  /** The object after mutation (admit phase only), for callers that chain phases. */
  mutatedObject?: KubeObject | undefined;
  rejectedBy?: string;
  outcome: PhaseOutcome;
}

export async function handleAdmission(chain: AdmissionChain, phase: Phase, request: AdmissionRequest, signal: AbortSignal): Promise<HandledReview> {
  try {
    return await handle(chain, phase, request, signal);
  } catch (thrown) {
    // The last safety net: whatever failed (an object nested too deeply to copy or diff, a bug
    // here), the caller still gets an answer that echoes the uid, and it is a denial.
    const error = isStatusError(thrown) ? thrown : internalError(messageOf(thrown), thrown);
    const outcome: PhaseOutcome = { rejection: error, warnings: [], annotations: {} };
    return { response: { uid: request.uid, allowed: false, status: statusOf(error) }, outcome };
  }
}

async function handle(chain: AdmissionChain, phase: Phase, request: AdmissionRequest, signal: AbortSignal): Promise<HandledReview> {
  const original = request.object ?? undefined;
  const working = phase === 'admit' && original !== undefined ? cloneJson(original) : original;
  const attributes: Attributes = attributesFrom(request, working);
  let outcome: PhaseOutcome;
  try {
    const running = phase === 'admit' ? chain.admit(attributes, signal) : chain.validate(attributes, signal);
    // A chain that finished synchronously needs no race against the deadline.
    outcome = isPromiseLike(running) ? await withDeadline(Promise.resolve(running), signal) : running;
  } catch (thrown) {
    const error = isStatusError(thrown) ? thrown : internalError(messageOf(thrown), thrown);
    outcome = { rejection: error, warnings: [], annotations: {} };
  }
  const response: AdmissionResponse = { uid: request.uid, allowed: outcome.rejection === undefined };
  if (outcome.rejection) {
    response.status = statusOf(outcome.rejection);
  } else if (phase === 'admit') {
    const patch = original === undefined || attributes.object === undefined ? [] : fastJsonPatch.compare(original, attributes.object);
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
