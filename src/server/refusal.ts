// The webhook's answers to a request it will not hand to admission, as one error type (hono's
// HTTPException): the HTTP status, the metav1.Status reason and message, and the label it is
// counted under. Each step of the route throws one; the app's one error handler answers and counts
// it (refusal-handler.ts). The catalogue below is every refusal there is.
import { maxNestingDepth } from '../util/go-json-syntax.ts';

/**
 * Where a refusal is counted: a request the webhook will not read (4xx) is the caller's fault, one
 * it had no room for before its deadline (503) is ours, and an unexpected error (500) is a bug.
 */
export type RefusalMetric = 'bad_requests' | 'unavailable_requests' | 'internal_errors';

export class Refusal extends Error {
  readonly status: number;
  /** The metav1.Status reason (BadRequest, RequestEntityTooLarge, …). */
  readonly reason: string;
  readonly metric: RefusalMetric;
  /** The metric's `reason` label: bounded, one per kind of refusal. */
  readonly label: string;
  /**
   * Whether the rest of the body is read off (boundedly) before the answer, so the caller gets it
   * rather than a reset connection; otherwise the connection closes after the answer.
   */
  readonly readOff: boolean;

  constructor(status: number, reason: string, message: string, metric: RefusalMetric, label: string, readOff = true) {
    super(message);
    this.name = 'Refusal';
    this.status = status;
    this.reason = reason;
    this.metric = metric;
    this.label = label;
    this.readOff = readOff;
  }
}

export function wrongContentType(header: string): Refusal {
  return new Refusal(
    400,
    'BadRequest',
    `content type must be application/json, got ${JSON.stringify(header)}`,
    'bad_requests',
    'content_type',
  );
}

export function unsupportedEncoding(encoding: string): Refusal {
  return new Refusal(
    400,
    'BadRequest',
    `cannot read request body: unsupported content encoding ${JSON.stringify(encoding)}`,
    'bad_requests',
    'unreadable',
  );
}

export function tooLarge(maxBodyBytes: number): Refusal {
  return new Refusal(413, 'RequestEntityTooLarge', `request body is larger than ${maxBodyBytes} bytes`, 'bad_requests', 'too_large');
}

/** Cut short, or of a declared length it did not have. */
export function unreadable(cause: string): Refusal {
  return new Refusal(400, 'BadRequest', `cannot read request body: ${cause}`, 'bad_requests', 'unreadable');
}

export function tooDeep(): Refusal {
  return new Refusal(400, 'BadRequest', `request body is nested deeper than ${maxNestingDepth} levels`, 'bad_requests', 'too_deep');
}

export function tooHeavy(weight: number, capacity: number): Refusal {
  return new Refusal(
    413,
    'RequestEntityTooLarge',
    `request body would take about ${mebibytes(weight)} MiB to handle, more than the ${mebibytes(capacity)} MiB all requests in flight may hold`,
    'bad_requests',
    'too_heavy',
  );
}

export function notJson(cause: string): Refusal {
  return new Refusal(400, 'BadRequest', `request body is not valid JSON: ${cause}`, 'bad_requests', 'not_json');
}

export function badReview(cause: string): Refusal {
  return new Refusal(400, 'BadRequest', `invalid AdmissionReview: ${cause}`, 'bad_requests', 'bad_review');
}

export function notFound(): Refusal {
  return new Refusal(404, 'NotFound', 'not found: the webhook serves POST /mutate and POST /validate', 'bad_requests', 'not_found');
}

/**
 * A request whose deadline passed (or whose caller left) while it waited for room. kube-apiserver
 * counts an HTTP error as the webhook failing, as it would count a timeout, and applies the
 * webhook's failurePolicy; the answer only says why sooner. Its body is not read off: the server
 * has no room for it, so the connection closes instead.
 */
export function noRoom(): Refusal {
  return new Refusal(
    503,
    'ServiceUnavailable',
    'admission-chain is at its in-flight limit: no room for this request before its deadline',
    'unavailable_requests',
    'no_room',
    false,
  );
}

/** Anything the route did not expect: logged where it is answered, never shown to the caller. */
export function internal(): Refusal {
  return new Refusal(500, 'InternalError', 'internal error while reading the request', 'internal_errors', 'internal');
}

function mebibytes(bytes: number): string {
  return (bytes / 1048576).toFixed(1);
}
