// One live GET behind a cache miss, a bounded call (bounded-call.ts) whose NotFound is an answer
// (undefined) and whose every other failure is an error the plugin reports. API errors become
// StatusErrors carrying the server's own Status, so a plugin sees what client-go would hand
// upstream's plugin (a Forbidden stays a Forbidden).
import { ApiException, type ConfigurationOptions, type ObservableMiddleware } from '@kubernetes/client-node';
import { StatusError } from '../../../api/status-error.ts';
import type { Status } from '../../../api/types.ts';
import { type BoundedCall, boundedCall, KubeCallError } from './bounded-call.ts';
import { statusOf } from './kube.ts';

export interface LiveReadOptions<T> extends BoundedCall {
  /** The typed client-node call, given the per-call options that bound it. */
  call(options: ConfigurationOptions<ObservableMiddleware>): Promise<unknown>;
  project(object: unknown): T;
  /** The object's URL, for client-go-style error text. */
  url: string;
  signal: AbortSignal | undefined;
}

export async function liveRead<T>(options: LiveReadOptions<T>): Promise<T | undefined> {
  const { call, project, url, signal } = options;
  try {
    return await boundedCall(options, { method: 'GET', url }, async (callOptions) => project(await call(callOptions)), signal);
  } catch (error) {
    if (!(error instanceof KubeCallError)) throw error;
    if (error.code === 404) return undefined;
    if (signal?.aborted) throw signal.reason;
    throw lookupError(error);
  }
}

function lookupError(error: KubeCallError): Error {
  const cause = error.cause;
  if (cause instanceof ApiException) {
    const status = statusOf(cause) as Partial<Status> | undefined;
    return new StatusError(
      {
        status: 'Failure',
        code: cause.code,
        ...(status?.reason ? { reason: status.reason } : {}),
        message: error.message,
        ...(status?.details ? { details: status.details } : {}),
      },
      { cause },
    );
  }
  return new Error(error.message, { cause });
}
