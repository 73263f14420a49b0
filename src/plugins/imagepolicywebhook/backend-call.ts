// One question to the ImageReview backend as upstream's GenericWebhook asks it: POST the review,
// read the answer by client-go's REST client rules (a status outside 200-206 is an API error built
// from the body: a Status the backend sent, else apimachinery's generic message for the code), and
// retry what DefaultShouldRetry retries (a reset connection, 500, 504, 429, or any error that
// suggests a delay) with wait.Backoff{initial: retryBackoff, factor 1.5, jitter 0.2, steps 5}:
// five attempts at most. Each attempt is bounded by upstream's 30 s request timeout and all of them
// by the request's deadline; when the deadline ends the waiting, the last attempt's error stands.
import { goQuote } from '../../api/go-format.ts';
import type { Clock, Random } from '../../ports/clock.ts';
import { type ImageReviewClient, type ImageReviewResponse, ImageReviewTransportError } from '../../ports/image-review.ts';
import type { ImagePolicyWebhookRecorder } from '../../ports/recorders.ts';
import { isPlainObject } from '../../util/plain-object.ts';
import { withTimeout } from '../../util/signals.ts';
import { apiVersion, type ImageReviewStatus } from './image-review.ts';

/** Upstream's defaultRequestTimeout: one attempt, body included. */
export const requestTimeoutMs = 30_000;
const steps = 5;
const factor = 1.5;
const jitter = 0.2;
/** client-go's cap on how much of an unstructured error body goes into the message. */
const maxUnstructuredResponseTextBytes = 2048;

/** A failed question: the error's text, and its API status when client-go would have made one. */
export interface BackendError {
  readonly message: string;
  readonly code?: number;
  readonly reason?: string;
  readonly retryAfterSeconds?: number;
  readonly connectionReset?: boolean;
}

export type BackendAnswer = { readonly status: ImageReviewStatus } | { readonly error: BackendError };

export interface BackendCallOptions {
  readonly client: ImageReviewClient;
  readonly clock: Clock;
  readonly random: Random;
  /** The first wait between attempts, in milliseconds. */
  readonly retryBackoffMs: number;
  readonly recorder?: ImagePolicyWebhookRecorder | undefined;
}

/** One POST's result, with the HTTP status it came with (undefined: no response). */
type Attempt = ({ readonly response: ImageReviewResponse } | { readonly error: BackendError }) & { readonly statusCode?: number };

export async function askBackend(options: BackendCallOptions, body: string, signal: AbortSignal): Promise<BackendAnswer> {
  let last: Attempt | undefined;
  let duration = options.retryBackoffMs;
  for (let step = steps; step > 0; step--) {
    if (signal.aborted) break;
    last = await attempt(options.client, body, signal);
    options.recorder?.attemptCompleted({ code: statusClass(last.statusCode) });
    if ('response' in last || !shouldRetry(last.error)) break;
    if (step === 1) break;
    const wait = duration + (options.random.intBelow(2 ** 30) / 2 ** 30) * jitter * duration;
    duration *= factor;
    try {
      await options.clock.sleep(wait, signal);
    } catch {
      break;
    }
  }
  if (last === undefined) return { error: { message: `webhook call failed: ${contextError(signal.reason)}` } };
  if ('error' in last) return last;
  return readAnswer(last.response);
}

async function attempt(client: ImageReviewClient, body: string, signal: AbortSignal): Promise<Attempt> {
  let response: ImageReviewResponse;
  try {
    response = await withTimeout(signal, requestTimeoutMs, (bounded) => client.post(body, bounded));
  } catch (error) {
    if (error instanceof ImageReviewTransportError) return { error: { message: error.message, connectionReset: error.connectionReset } };
    return { error: { message: `Post ${goQuote(client.url)}: ${(error as Error).message}` } };
  }
  const { statusCode } = response;
  if (statusCode < 200 || statusCode > 206) return { error: responseError(response), statusCode };
  return { response, statusCode };
}

function statusClass(statusCode: number | undefined): '2xx' | '3xx' | '4xx' | '5xx' | 'none' {
  if (statusCode === undefined || statusCode < 200 || statusCode > 599) return 'none';
  return `${Math.floor(statusCode / 100)}xx` as '2xx' | '3xx' | '4xx' | '5xx';
}

/** DefaultShouldRetry over the error as client-go would have typed it. */
function shouldRetry(error: BackendError): boolean {
  if (error.connectionReset === true) return true;
  const { reason, code } = error;
  if (code === undefined) return false;
  const unknownReason = reason === undefined || !knownReasons.has(reason);
  if (reason === 'InternalError' || (unknownReason && code === 500)) return true;
  if (reason === 'Timeout' || (unknownReason && code === 504)) return true;
  if (reason === 'TooManyRequests' || code === 429) return true;
  return reason === 'ServerTimeout' || (error.retryAfterSeconds ?? 0) > 0;
}

const knownReasons = new Set([
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Gone',
  'Invalid',
  'ServerTimeout',
  'StoreReadError',
  'Timeout',
  'TooManyRequests',
  'BadRequest',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'InternalError',
  'Expired',
  'ServiceUnavailable',
]);

/** A status outside 200-206: the backend's own failure Status, else NewGenericServerResponse's. */
function responseError(response: ImageReviewResponse): BackendError {
  const retryAfter = /^-?\d+$/.test(response.retryAfter ?? '') ? Number(response.retryAfter) : 0;
  const sent = sentStatus(response);
  if (sent !== undefined) return sent;
  const text = isTextResponse(response.contentType)
    ? Buffer.from(response.body).subarray(0, maxUnstructuredResponseTextBytes).toString('utf8').trim()
    : 'unknown';
  const { reason, message } = genericResponse(response.statusCode, text);
  return { message, code: response.statusCode, ...(reason === undefined ? {} : { reason }), retryAfterSeconds: retryAfter };
}

/** A JSON metav1.Status with status Failure, as Result.Error() recovers it. */
function sentStatus(response: ImageReviewResponse): BackendError | undefined {
  if (!/json/i.test(response.contentType ?? '')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body);
  } catch {
    return undefined;
  }
  if (!isPlainObject(parsed) || parsed.kind !== 'Status' || parsed.status !== 'Failure') return undefined;
  const details = isPlainObject(parsed.details) ? parsed.details : {};
  return {
    message: typeof parsed.message === 'string' ? parsed.message : '',
    code: typeof parsed.code === 'number' ? parsed.code : response.statusCode,
    ...(typeof parsed.reason === 'string' && parsed.reason !== '' ? { reason: parsed.reason } : {}),
    retryAfterSeconds: typeof details.retryAfterSeconds === 'number' ? details.retryAfterSeconds : 0,
  };
}

function isTextResponse(contentType: string | undefined): boolean {
  if (contentType === undefined || contentType === '') return true;
  return /^\s*text\//i.test(contentType);
}

/** apierrors.NewGenericServerResponse for a POST with no resource: its reason and message by code. */
export function genericResponse(code: number, serverMessage: string): { reason: string | undefined; message: string } {
  switch (code) {
    case 409:
      return { reason: 'AlreadyExists', message: 'the server reported a conflict' };
    case 404:
      return { reason: 'NotFound', message: 'the server could not find the requested resource' };
    case 400:
      return { reason: 'BadRequest', message: 'the server rejected our request for an unknown reason' };
    case 401:
      return { reason: 'Unauthorized', message: 'the server has asked for the client to provide credentials' };
    case 403:
      return { reason: 'Forbidden', message: serverMessage };
    case 406:
      return {
        reason: 'NotAcceptable',
        message:
          serverMessage === '' || serverMessage === 'unknown'
            ? 'the server was unable to respond with a content type that the client supports'
            : serverMessage,
      };
    case 415:
      return { reason: 'UnsupportedMediaType', message: serverMessage };
    case 405:
      return { reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource' };
    case 422:
      return { reason: 'Invalid', message: 'the server rejected our request due to an error in our request' };
    case 503:
      return { reason: 'ServiceUnavailable', message: 'the server is currently unable to handle the request' };
    case 504:
      return {
        reason: 'Timeout',
        message: 'the server was unable to return a response in the time allotted, but may still be processing the request',
      };
    case 429:
      return { reason: 'TooManyRequests', message: 'the server has received too many requests and has asked us to try again later' };
    default:
      if (code >= 500)
        return {
          reason: 'InternalError',
          message: `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding`,
        };
      return { reason: undefined, message: `the server responded with the status code ${code} but did not return more information` };
  }
}

/** A 2xx answer read into an ImageReview's status (result.Into), or why it could not be. */
function readAnswer(response: ImageReviewResponse): BackendAnswer {
  // Upstream's own check after the REST client's: only 200-206 reach it, so only 3 codes fail it.
  if (response.statusCode < 200 || response.statusCode >= 300)
    return { error: { message: `Error contacting webhook: ${response.statusCode}` } };
  if (response.body.length === 0)
    return {
      error: {
        message: `0-length response with status code: ${response.statusCode} and content type: ${response.contentType ?? ''}`,
      },
    };
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body);
  } catch (error) {
    return { error: { message: `couldn't get version/kind; json parse error: ${(error as Error).message}` } };
  }
  if (!isPlainObject(parsed)) return { error: { message: "couldn't get version/kind; json parse error: not an object" } };
  const kind = parsed.kind ?? 'ImageReview';
  const version = parsed.apiVersion ?? apiVersion;
  if (kind !== 'ImageReview' || version !== apiVersion)
    return { error: { message: `no kind ${goQuote(String(kind))} is registered for version ${goQuote(String(version))}` } };
  const status = parsed.status ?? {};
  if (!isPlainObject(status)) return { error: { message: 'ImageReview.status: expected an object' } };
  const { allowed = false, reason = '', auditAnnotations = {} } = status as Record<string, unknown>;
  if (allowed !== null && typeof allowed !== 'boolean') return { error: { message: 'ImageReview.status.allowed: expected a boolean' } };
  if (reason !== null && typeof reason !== 'string') return { error: { message: 'ImageReview.status.reason: expected a string' } };
  const annotations = auditAnnotations ?? {};
  if (!isPlainObject(annotations) || !Object.values(annotations).every((v) => v === null || typeof v === 'string'))
    return { error: { message: 'ImageReview.status.auditAnnotations: expected a map of strings' } };
  return {
    status: {
      allowed: allowed === true,
      reason: reason ?? '',
      auditAnnotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [k, (v as string | null) ?? ''])),
    },
  };
}

function contextError(reason: unknown): string {
  return reason instanceof Error && reason.name === 'TimeoutError' ? 'context deadline exceeded' : 'context canceled';
}
