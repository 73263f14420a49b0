// A value a port may give at once (an in-memory answer, a cached one) or later (a round trip to the
// API server). Most callers simply await it; isPromiseLike is for the few that skip a promise when
// the value is at hand (the in-flight budget, which most requests pass without waiting).

export type MaybePromise<T> = T | Promise<T>;

export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}
