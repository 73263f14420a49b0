// One bucket of EventRateLimit's (upstream flowcontrol.NewTokenBucketRateLimiterWithClock over
// golang.org/x/time/rate's Limiter): `burst` tokens to start, refilled continuously at `qps` a second
// up to `burst`; an event takes one token or is refused. The arithmetic is rate.Limiter's, step for
// step, so a bucket here admits exactly what kube-apiserver's would at the same instants.
import type { Clock } from '../../ports/clock.ts';

const nanosecondsPerSecond = 1e9;

export class TokenBucket {
  readonly #clock: Clock;
  /** rate.Limit(float32(qps)): the configured int32 through a float32, as upstream passes it. */
  readonly #limit: number;
  readonly #burst: number;
  #tokens: number;
  /** When a token was last taken (ms on the clock); undefined before the first (Go's zero time). */
  #last: number | undefined;

  constructor(qps: number, burst: number, clock: Clock) {
    this.#clock = clock;
    this.#limit = Math.fround(qps);
    this.#burst = burst;
    this.#tokens = burst;
  }

  /** TryAccept (rate.Limiter.AllowN(now, 1)): takes a token if one is there now. */
  tryAccept(): boolean {
    const now = this.#clock.now();
    const tokens = this.#advance(now) - 1;
    // reserveN with no time to wait: a shortfall shorter than a nanosecond's refill still passes.
    const waitNanoseconds = tokens < 0 ? this.#nanosecondsFor(-tokens) : 0;
    if (!(1 <= this.#burst && waitNanoseconds <= 0)) return false;
    this.#last = now;
    this.#tokens = tokens;
    return true;
  }

  /** advance: the tokens there would be at `now`, capped at burst; the bucket itself is unchanged. */
  #advance(now: number): number {
    let refill: number;
    if (this.#last === undefined) {
      // Since the zero time: Go saturates the duration, which fills any bucket with a positive rate.
      refill = this.#limit > 0 ? Number.POSITIVE_INFINITY : 0;
    } else {
      // A clock that went back counts as no time passed.
      const elapsed = Math.max(0, now - this.#last);
      refill = this.#limit > 0 ? seconds(Math.round(elapsed * 1e6)) * this.#limit : 0;
    }
    const tokens = this.#tokens + refill;
    return Math.min(tokens, this.#burst);
  }

  /** durationFromTokens, in whole nanoseconds (Go's conversion to a Duration truncates). */
  #nanosecondsFor(tokens: number): number {
    if (this.#limit <= 0) return Number.POSITIVE_INFINITY;
    return Math.trunc((tokens / this.#limit) * nanosecondsPerSecond);
  }
}

/** time.Duration.Seconds(): whole seconds plus the remaining nanoseconds, as Go adds them. */
function seconds(nanoseconds: number): number {
  const whole = Math.trunc(nanoseconds / nanosecondsPerSecond);
  return whole + (nanoseconds % nanosecondsPerSecond) / nanosecondsPerSecond;
}
