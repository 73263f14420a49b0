// One live GET behind a cache miss: NotFound is an answer (undefined), every other failure is an
// error the plugin reports. API errors become StatusErrors carrying the server's own Status, so a
// plugin sees what client-go would hand upstream's plugin (a Forbidden stays a Forbidden); the
// call is bounded by the caller's signal and a timeout of its own, and abandoned requests are
// aborted on the wire, not left running.
import { ApiException } from '@kubernetes/client-node';
import { StatusError } from '../../api/status-error.ts';
import type { Status } from '../../api/types.ts';
import { withTimeout } from '../../util/signals.ts';
import { describeKubeError, raceWithSignal, statusOf } from './kube.ts';

export interface LiveReadOptions<T> {
  /** The typed client-node call, given the signal that bounds it. */
  call(signal: AbortSignal): Promise<unknown>;
  project(object: unknown): T;
  /** The object's URL, for client-go-style error text. */
  url: string;
  signal: AbortSignal | undefined;
  timeoutMs: number;
}

export async function liveRead<T>(options: LiveReadOptions<T>): Promise<T | undefined> {
  const { call, project, url, signal, timeoutMs } = options;
  try {
    return project(await withTimeout(signal, timeoutMs, (bounded) => raceWithSignal(call(bounded), bounded)));
  } catch (error) {
    if (error instanceof ApiException && error.code === 404) return undefined;
    if (signal?.aborted) throw signal.reason;
    throw lookupError(error, url);
  }
}

function lookupError(error: unknown, url: string): Error {
  if (error instanceof ApiException) {
    const status = statusOf(error) as Partial<Status> | undefined;
    return new StatusError(
      {
        status: 'Failure',
        code: error.code,
        ...(status?.reason ? { reason: status.reason } : {}),
        message: describeKubeError(error, 'GET', url),
        ...(status?.details ? { details: status.details } : {}),
      },
      { cause: error },
    );
  }
  return new Error(describeKubeError(error, 'GET', url), { cause: error });
}
