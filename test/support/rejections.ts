// How a plugin step ended: the StatusError it rejected with, or undefined when it admitted. Anything
// else it throws is a bug and propagates.
import { isStatusError, type StatusError } from '../../src/api/status-error.ts';

/** For a step that may answer at once or later. */
export async function rejectionOf(run: () => unknown): Promise<StatusError | undefined> {
  try {
    await run();
    return undefined;
  } catch (error) {
    if (!isStatusError(error)) throw error;
    return error;
  }
}

/** For a step that answers at once: a promise back is a failure of the test. */
export function syncRejectionOf(run: () => unknown): StatusError | undefined {
  try {
    const returned = run();
    if (returned instanceof Promise) throw new Error('expected an answer at once, got a promise');
    return undefined;
  } catch (error) {
    if (!isStatusError(error)) throw error;
    return error;
  }
}

/** For a step that must reject at once: its StatusError; admitting is a failure of the test. */
export function rejectedWith(run: () => unknown): StatusError {
  const error = syncRejectionOf(run);
  if (error === undefined) throw new Error('expected a StatusError, nothing was thrown');
  return error;
}

/** The message of a Forbidden (403) rejection given at once, or undefined when admitted; any other rejection fails the test. */
export function forbiddenMessageOf(run: () => unknown): string | undefined {
  const error = syncRejectionOf(run);
  if (error === undefined) return undefined;
  if (error.status.code !== 403 || error.status.reason !== 'Forbidden')
    throw new Error(`expected a Forbidden rejection, got ${error.status.code} ${error.status.reason ?? ''}: ${error.message}`);
  return error.message;
}
