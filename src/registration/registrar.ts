// Keeps the webhooks of the two configurations the chart installs what the chart asked for, with the
// CA bundle managed here injected. A write that would make the API server start calling a webhook,
// or fail closed on one, waits until this replica is ready and a probe through the Service answers:
// so no webhook is registered, or switched to Fail, while nobody is there to answer it.
import type { Logger } from '../ports/logger.ts';
import { ConfigurationKind, type WebhookConfigurationStore, type WebhookJson } from '../ports/webhook-configuration-store.ts';
import { addsCallsOrFailsClosed, desiredWebhooks, upToDate } from './desired.ts';
import type { ProbeResult } from './probe.ts';
import { parseTemplate, registeredAnnotation } from './template.ts';

export interface RegistrarOptions {
  store: WebhookConfigurationStore;
  /** The name both configurations carry. */
  name: string;
  /** The CA bundle (PEM) to inject, or undefined to keep what the template or the live webhooks say. */
  caBundle: () => Promise<string | undefined>;
  /** Why this replica is not ready yet; [] when it is. */
  notReady: () => string[];
  probe: (webhook: WebhookJson) => Promise<ProbeResult>;
  logger: Logger;
}

export const RegistrationState = {
  /** No configuration of this kind exists (its phase has no enabled plugin, or it was removed). */
  Absent: 'absent',
  UpToDate: 'up-to-date',
  Written: 'written',
  /** Not written yet: not ready, or the probe failed. */
  Waiting: 'waiting',
  /** Another replica wrote first; the next pass starts from its write. */
  Conflict: 'conflict',
  Invalid: 'invalid',
} as const;
export type RegistrationState = (typeof RegistrationState)[keyof typeof RegistrationState];

export interface RegistrationOutcome {
  kind: ConfigurationKind;
  state: RegistrationState;
  detail?: string;
}

export class Registrar {
  readonly #options: RegistrarOptions;
  /** resourceVersion and digest of our last write per kind: unchanged since, it is up to date. */
  readonly #lastWrite = new Map<ConfigurationKind, { resourceVersion: string; digest: string }>();

  constructor(options: RegistrarOptions) {
    this.#options = options;
  }

  async reconcile(signal?: AbortSignal): Promise<RegistrationOutcome[]> {
    const bundle = await this.#options.caBundle();
    const outcomes: RegistrationOutcome[] = [];
    for (const kind of [ConfigurationKind.Mutating, ConfigurationKind.Validating])
      outcomes.push(await this.#reconcileKind(kind, bundle, signal));
    return outcomes;
  }

  async #reconcileKind(kind: ConfigurationKind, bundle: string | undefined, signal: AbortSignal | undefined): Promise<RegistrationOutcome> {
    const { store, name } = this.#options;
    const live = await store.read(kind, name, signal);
    if (live === undefined) return { kind, state: RegistrationState.Absent };
    let template: WebhookJson[] | undefined;
    try {
      template = parseTemplate(live.annotations);
    } catch (error) {
      return { kind, state: RegistrationState.Invalid, detail: (error as Error).message };
    }
    // Without a template the live webhooks stay as they are, unless there is a bundle to inject.
    if (template === undefined && bundle === undefined) return { kind, state: RegistrationState.UpToDate };
    const desired = desiredWebhooks(template, live, bundle);
    const last = this.#lastWrite.get(kind);
    const ours = last !== undefined && last.resourceVersion === live.resourceVersion && last.digest === desired.digest;
    if (ours || upToDate(desired, live)) return { kind, state: RegistrationState.UpToDate };

    if (addsCallsOrFailsClosed(desired, live)) {
      const notReady = this.#options.notReady();
      if (notReady.length > 0) return { kind, state: RegistrationState.Waiting, detail: `not ready: ${notReady.join('; ')}` };
      for (const webhook of desired.webhooks) {
        const result = await this.#options.probe(webhook);
        if (!result.ok) return { kind, state: RegistrationState.Waiting, detail: `probe failed: ${result.reason}` };
      }
    }
    const written = await store.writeWebhooks(
      kind,
      name,
      { webhooks: desired.webhooks, annotations: { [registeredAnnotation]: desired.digest }, resourceVersion: live.resourceVersion },
      signal,
    );
    if (written === 'conflict') return { kind, state: RegistrationState.Conflict };
    this.#lastWrite.set(kind, { resourceVersion: written.resourceVersion, digest: desired.digest });
    return {
      kind,
      state: RegistrationState.Written,
      detail: desired.webhooks.map((w) => `${w.name}:${(w.failurePolicy as string | undefined) ?? 'Fail'}`).join(', '),
    };
  }
}
