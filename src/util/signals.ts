// Deadlines as AbortSignals, shared by the admission handler and the cluster adapters.

/** Races work against signal, so a caller is released at its deadline even if the work lingers. */
export function raceWithSignal<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Runs work under a signal that aborts when the caller's signal does or after timeoutMs, whichever
 * comes first (the reason is a TimeoutError, as AbortSignal.timeout's). Unlike AbortSignal.timeout
 * with AbortSignal.any, the timer and the listener are released as soon as work settles: under load
 * those would otherwise keep every finished call's signals alive, and then fire, for the whole timeout.
 */
export async function withTimeout<T>(
  signal: AbortSignal | undefined,
  timeoutMs: number,
  work: (bounded: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

const requests = new WeakMap<AbortSignal, AbortSignal>();

/**
 * A signal for part of a request's work that ends sooner: it aborts with the request's signal or
 * with `sooner`, and still counts as the request's own where work is counted per request
 * (requestOf: the per-request SubjectAccessReview limit).
 */
export function narrowed(request: AbortSignal, sooner: AbortSignal): AbortSignal {
  const signal = AbortSignal.any([request, sooner]);
  requests.set(signal, requestOf(request));
  return signal;
}

/** The request a signal belongs to: the one it was narrowed from, or itself. */
export function requestOf(signal: AbortSignal): AbortSignal {
  return requests.get(signal) ?? signal;
}
