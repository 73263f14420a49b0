// Steps that are usually ready at once (a cached authorization answer) and only sometimes wait (a
// round trip to the API server). An async function pays a promise and a microtask turn for every
// await even when the value is already there; a request of a narrowly scoped user asks a dozen
// questions. Here the logic is written once, as a generator that yields what it waits for, and
// `runSteps` runs it synchronously until something yielded is really pending: a request whose
// answers are all cached is decided without a single promise, and one that waits continues, in
// order, when the awaited value arrives. Rejections are thrown into the generator at the yield,
// as an await would throw them, so try/catch around a `yield*` reads as it would around await.

export type MaybePromise<T> = T | Promise<T>;

/** A generator of steps: it yields what it waits for and gets back the settled value. */
export type Steps<R> = Generator<unknown, R, unknown>;

/**
 * `const value = yield* settled(x)`: the `await x` of a step generator, typed. Each call makes a
 * generator; where that matters (a dozen cached answers per request), a caller writes
 * `isPromiseLike(x) ? yield* settled(x) : x` and pays for it only when x is pending.
 */
export function* settled<T>(value: T | PromiseLike<T>): Generator<T | PromiseLike<T>, T, unknown> {
  return (yield value) as T;
}

export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/**
 * Runs steps until they finish: synchronously while every yielded value is ready (returning the
 * result, or throwing what the steps threw), otherwise as a promise from the first pending value on.
 */
export function runSteps<R>(steps: Steps<R>): MaybePromise<R> {
  return advance(steps, steps.next());
}

function advance<R>(steps: Steps<R>, result: IteratorResult<unknown, R>): MaybePromise<R> {
  while (!result.done) {
    const value = result.value;
    if (isPromiseLike(value)) {
      return Promise.resolve(value).then(
        (settledValue) => advance(steps, steps.next(settledValue)),
        (error: unknown) => advance(steps, steps.throw(error)),
      );
    }
    result = steps.next(value);
  }
  return result.value;
}
