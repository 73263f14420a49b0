// One admission call, end to end: decoded request → attributes → chain phase → AdmissionResponse
// (controller-runtime's typed handle() and complete()). Mutations are made on a copy and sent as
// one JSONPatch against the request's object; no patch when nothing changed.
import type { KubeObject } from '../api/types.ts';
import { raceWithSignal } from '../util/signals.ts';
import type { Attributes } from './attributes.ts';
import type { AdmissionChain, Phase, PhaseOutcome } from './chain.ts';
import type { Deadline } from './deadline.ts';
import { abortedError } from './errors.ts';
import { allowed, asStatusError, denied, errored, patched, withAuditAnnotations, withWarnings } from './response.ts';
import { type AdmissionRequest, type AdmissionResponse, attributesFrom } from './review.ts';

export interface HandledReview {
  response: AdmissionResponse;
  /** The object after mutation (admit phase only), for callers that chain phases. */
  mutatedObject?: KubeObject | undefined;
  rejectedBy?: string;
  outcome: PhaseOutcome;
}

/** The typed handler the HTTP layer calls for one webhook, and decorators wrap. */
export type AdmissionHandler = (request: AdmissionRequest, deadline: Deadline) => Promise<HandledReview>;

export function admissionHandler(chain: AdmissionChain, phase: Phase): AdmissionHandler {
  return (request, deadline) => handleAdmission(chain, phase, request, deadline);
}

export async function handleAdmission(
  chain: AdmissionChain,
  phase: Phase,
  request: AdmissionRequest,
  deadline: Deadline,
): Promise<HandledReview> {
  try {
    return await handle(chain, phase, request, deadline);
  } catch (thrown) {
    // The last safety net: whatever failed (an object nested too deeply to copy or diff, a bug
    // here), the caller still gets an answer that echoes the uid, and it is a denial.
    return { response: errored(request.uid, thrown), outcome: { rejection: asStatusError(thrown), warnings: [], annotations: {} } };
  }
}

async function handle(chain: AdmissionChain, phase: Phase, request: AdmissionRequest, deadline: Deadline): Promise<HandledReview> {
  const original = request.object ?? undefined;
  // Only what mutating plugins may change is copied; the rest is shared with the request's object.
  const working = phase === 'admit' && original !== undefined ? chain.mutationScope.copy(original) : original;
  const attributes: Attributes = attributesFrom(request, working);
  let outcome: PhaseOutcome;
  try {
    const running = phase === 'admit' ? chain.admit(attributes, deadline) : chain.validate(attributes, deadline);
    outcome = await withDeadline(running, deadline.signal);
  } catch (thrown) {
    outcome = { rejection: asStatusError(thrown), warnings: [], annotations: {} };
  }
  // The answer is late already: no diff for a caller that has stopped waiting.
  if (outcome.rejection === undefined && phase === 'admit' && performance.now() >= deadline.expiresAt) {
    outcome = { rejection: abortedError(new DOMException('deadline', 'TimeoutError')), warnings: [], annotations: {} };
  }
  let response: AdmissionResponse;
  if (outcome.rejection) response = denied(request.uid, outcome.rejection);
  else if (phase === 'validate') response = allowed(request.uid);
  else
    response = patched(
      request.uid,
      original === undefined || attributes.object === undefined ? [] : chain.mutationScope.patch(original, attributes.object),
    );
  withAuditAnnotations(withWarnings(response, outcome.warnings), outcome.annotations);
  const handled: HandledReview = { response, outcome };
  if (outcome.rejectedBy !== undefined) handled.rejectedBy = outcome.rejectedBy;
  if (phase === 'admit' && !outcome.rejection) handled.mutatedObject = attributes.object;
  return handled;
}

/** Guarantees an answer by the deadline even if a plugin ignores its signal. */
function withDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return raceWithSignal(work, signal).catch((error: unknown) => {
    throw signal.aborted ? abortedError(signal.reason) : error;
  });
}
