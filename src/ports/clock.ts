// Time and randomness are injected so retry policies are testable without sleeping.

export interface Clock {
  now(): number;
  /** Resolves after ms milliseconds; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface Random {
  /** A uniformly random integer in [0, n) (Go's rand.Int63n). */
  intBelow(n: number): number;
  /** n random lowercase-alphanumeric characters (apimachinery's rand.String, for generated names). */
  alphanumeric(n: number): string;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

// apimachinery's rand.String alphabet: no vowels and no confusable characters.
const alphabet = 'bcdfghjklmnpqrstvwxz2456789';

export const systemRandom: Random = {
  intBelow: (n) => Math.floor(Math.random() * n),
  alphanumeric: (n) => {
    let out = '';
    for (let i = 0; i < n; i++) out += alphabet[Math.floor(Math.random() * alphabet.length)];
    return out;
  },
};
