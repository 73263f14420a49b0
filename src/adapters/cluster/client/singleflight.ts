// Identical concurrent work runs once: the first caller starts it, later callers with the same key
// join it. Each caller waits only as long as its own signal allows; the shared work is aborted only
// when every caller has given up, so one impatient caller never cancels the others' answer.

interface Flight<T> {
  promise: Promise<T>;
  controller: AbortController;
  waiters: number;
}

export interface FlightTicket<T> {
  result: Promise<T>;
  /** True when this caller joined work another caller had already started. */
  joined: boolean;
}

export class SingleFlight<T> {
  readonly #flights = new Map<string, Flight<T>>();

  /** How many distinct pieces of work are running. */
  get inFlight(): number {
    return this.#flights.size;
  }

  /** Whether work for key is running. */
  has(key: string): boolean {
    return this.#flights.has(key);
  }

  run(key: string, work: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): FlightTicket<T> {
    let flight = this.#flights.get(key);
    const joined = flight !== undefined;
    if (flight === undefined) {
      const controller = new AbortController();
      const started: Flight<T> = { promise: Promise.resolve().then(() => work(controller.signal)), controller, waiters: 0 };
      this.#flights.set(key, started);
      // Settled work leaves the table; its outcome is observed here so a flight every caller
      // abandoned never becomes an unhandled rejection.
      started.promise.then(
        () => this.#forget(key, started),
        () => this.#forget(key, started),
      );
      flight = started;
    }
    return { result: this.#wait(key, flight, signal), joined };
  }

  #wait(key: string, flight: Flight<T>, signal: AbortSignal | undefined): Promise<T> {
    flight.waiters += 1;
    return new Promise<T>((resolve, reject) => {
      let left = false;
      const detach = (): boolean => {
        if (left) return false;
        left = true;
        signal?.removeEventListener('abort', onAbort);
        flight.waiters -= 1;
        return true;
      };
      const onAbort = () => {
        if (!detach()) return;
        if (flight.waiters === 0) {
          this.#forget(key, flight);
          flight.controller.abort(signal?.reason);
        }
        reject(signal?.reason);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(
        (value) => detach() && resolve(value),
        (error: unknown) => detach() && reject(error),
      );
    });
  }

  #forget(key: string, flight: Flight<T>): void {
    if (this.#flights.get(key) === flight) this.#flights.delete(key);
  }
}
