// Whether each configuration the chart asked for is registered as it asked, from the registrar's
// outcomes: a webhook that never registered fails open without a word, so this state is a gauge
// and every change of it a log line. Only the kinds the enabled plugins use are expected; a pass
// that could not tell (a conflicting write, an API server out of reach) changes nothing.
import type { Logger } from '../ports/logger.ts';
import type { ConfigurationKind } from '../ports/webhook-configuration-store.ts';
import { type RegistrationOutcome, RegistrationState } from './registrar.ts';

/** Told each expected configuration's state: at the start (not registered) and at every change. */
export interface RegistrationRecorder {
  registered(kind: ConfigurationKind, registered: boolean): void;
}

export interface RegistrationStatusOptions {
  /** The configurations the chart installs for the enabled plugins' phases. */
  expected: readonly ConfigurationKind[];
  /** Their name. */
  name: string;
  recorder?: RegistrationRecorder;
  logger: Logger;
}

/** What an outcome says about registration: undefined when it cannot tell. */
function registeredBy(outcome: RegistrationOutcome): boolean | undefined {
  switch (outcome.state) {
    case RegistrationState.UpToDate:
    case RegistrationState.Written:
      return true;
    case RegistrationState.Conflict:
      return undefined;
    default:
      return false;
  }
}

export class RegistrationStatus {
  readonly #options: RegistrationStatusOptions;
  /** The last state logged per kind; absent until a pass tells. */
  readonly #known = new Map<ConfigurationKind, boolean>();

  constructor(options: RegistrationStatusOptions) {
    this.#options = options;
    // Not registered until a pass shows otherwise, so the series exist from the start.
    for (const kind of options.expected) options.recorder?.registered(kind, false);
  }

  observe(outcome: RegistrationOutcome): void {
    const { expected, name, recorder, logger } = this.#options;
    if (!expected.includes(outcome.kind)) return;
    const registered = registeredBy(outcome);
    if (registered === undefined || this.#known.get(outcome.kind) === registered) return;
    this.#known.set(outcome.kind, registered);
    recorder?.registered(outcome.kind, registered);
    const fields = { kind: outcome.kind, name, state: outcome.state, ...(outcome.detail ? { detail: outcome.detail } : {}) };
    if (registered) logger.info(fields, 'webhook configuration registered as the chart asked');
    else logger.warn(fields, 'webhook configuration not registered as the chart asked');
  }
}
