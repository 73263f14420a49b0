// After its first "no" the plugin keeps asking the questions it would have asked next, so the
// explanation names every missing permission and granting them all admits the request. Only the
// first rejection is thrown, message untouched; what is gathered after it is bounded in questions
// and in time, and never changes the decision.

import { type DenialFact, explained } from '../../admission/explanation.ts';
import type { StatusError } from '../../api/status-error.ts';
import { narrowed } from '../../util/signals.ts';

/** Questions (authorizations and REST mapping look-ups) asked after the first denial, at most. */
export const maxQuestionsAfterDenial = 16;
/** Time given to them, at most; never more than half of what is left before the request's deadline. */
export const explanationBudgetMs = 1000;

export class Denials {
  readonly #expiresAt: number;
  #first: StatusError | undefined;
  readonly #facts: DenialFact[] = [];
  #asked = 0;
  #incomplete = false;
  /** When gathering stops (performance.now() time); set at the first denial. */
  #stopAt = Number.POSITIVE_INFINITY;
  /** Ends the questions asked after the first denial once explaining stops: none outlives it. */
  #stop: AbortController | undefined;
  #explaining: AbortSignal | undefined;

  /** `expiresAt`: the request's deadline on performance.now()'s clock. */
  constructor(expiresAt: number) {
    this.#expiresAt = expiresAt;
  }

  /** True once the request is denied: the rest is explanation. */
  get denied(): boolean {
    return this.#first !== undefined;
  }

  record(error: StatusError, fact: DenialFact): void {
    if (this.#first === undefined) {
      this.#first = error;
      const now = performance.now();
      this.#stopAt = now + Math.min(explanationBudgetMs, Math.max(0, (this.#expiresAt - now) / 2));
    }
    this.#facts.push(fact);
  }

  /**
   * The signal to ask a question with: the request's until the first denial, then one that also
   * aborts when explaining stops (out of questions or time, or finished), so a question cut off
   * does not run on after the answer has left.
   */
  signal(request: AbortSignal): AbortSignal {
    if (this.#first === undefined) return request;
    this.#stop ??= new AbortController();
    return (this.#explaining ??= narrowed(request, this.#stop.signal));
  }

  /** Whether one more question may be asked: always before a denial, within the bounds after. */
  mayAsk(): boolean {
    if (this.#first === undefined) return true;
    if (this.#asked >= maxQuestionsAfterDenial || performance.now() >= this.#stopAt) {
      this.#stopAsking();
      return false;
    }
    this.#asked += 1;
    return true;
  }

  /**
   * Before a denial, the answer as it is. After one, the answer is waited for only as long as is
   * left of the time given to explaining: undefined when that runs out first (the question, asked
   * with signal(), is aborted then).
   */
  inTime<T>(answer: Promise<T>): Promise<T | undefined> {
    if (this.#first === undefined) return answer;
    const left = this.#stopAt - performance.now();
    if (left <= 0) {
      // Nobody waits for it: its failure must not go unhandled.
      answer.catch(() => {});
      this.#stopAsking();
      return Promise.resolve(undefined);
    }
    let timer: NodeJS.Timeout | undefined;
    const outOfTime = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => {
        this.#stopAsking();
        resolve(undefined);
      }, left);
      timer.unref();
    });
    return Promise.race([answer, outOfTime]).finally(() => clearTimeout(timer));
  }

  #stopAsking(): void {
    this.#incomplete = true;
    this.#stop?.abort(new DOMException('out of time or questions to explain the denial', 'TimeoutError'));
  }

  /** Throws the first rejection with every fact gathered; returns when nothing was denied. */
  finish(): void {
    if (this.#first === undefined) return;
    this.#stop?.abort(new DOMException('explaining the denial stopped', 'AbortError'));
    throw explained(this.#first, this.#incomplete ? { facts: this.#facts, incomplete: true } : { facts: this.#facts });
  }
}
