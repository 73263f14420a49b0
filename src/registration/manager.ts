// What the webhook manages in the cluster while it serves, in one loop: first the self-managed
// certificate (before the server starts, so there is something to serve), then its registration.
// Every replica runs the loop; the Secret's and the configurations' resourceVersions decide which
// write wins, and the others follow it. The stores are handed in by the composition root.
import { readFile } from 'node:fs/promises';
import { CertificateController } from '../certificates/controller.ts';
import type { CertificatePolicy } from '../certificates/policy.ts';
import type { CertificateSecretStore } from '../ports/certificate-secret-store.ts';
import { type Clock, systemClock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import type { ConfigurationKind, WebhookConfigurationStore } from '../ports/webhook-configuration-store.ts';
import { probeWebhook, type Redirect } from './probe.ts';
import { Registrar, type RegistrationOutcome, RegistrationState } from './registrar.ts';
import { type RegistrationRecorder, RegistrationStatus } from './status.ts';

/** What the loop manages, each with the store it writes through (the composition root builds them). */
export interface ManagedParts {
  /** Self-managed TLS: the Secret the CA and serving certificate live in. */
  certificates?: { store: CertificateSecretStore; policy: CertificatePolicy };
  /** Registration in the Mutating- and ValidatingWebhookConfiguration of this name. */
  registration?: { store: WebhookConfigurationStore; name: string; caBundleFile: string | undefined };
  /** Where the serving certificate is written for the server to read. */
  files: { certFile: string; keyFile: string };
  reconcileIntervalMs: number;
  /** Releases what the stores hold (the connection pool), once the loop has stopped. */
  close(): Promise<void>;
}

/** Test seams: where Service names really are, and the clock certificates are dated by. */
export interface ManagementOverrides {
  redirect?: Redirect;
  clock?: Clock;
}

/** Which configurations the chart installs (the enabled plugins' phases), and where their state is recorded. */
export interface RegistrationWatch {
  expected: readonly ConfigurationKind[];
  recorder?: RegistrationRecorder;
}

export interface Management {
  /** Starts the loop; notReady is the server's readiness (registration waits for it). */
  run(notReady: () => string[], watch?: RegistrationWatch): void;
  stop(): Promise<void>;
}

const probeTimeoutMs = 5_000;
const startupAttempts = 5;
/** How soon a pass that could not finish (waiting, conflict, error) is tried again, at most. */
const retryMs = 2_000;

export async function startManagement(parts: ManagedParts, logger: Logger, overrides: ManagementOverrides = {}): Promise<Management> {
  const log = logger.child({ subsystem: 'management' });
  const clock = overrides.clock ?? systemClock;
  const stopping = new AbortController();

  const certificates =
    parts.certificates === undefined
      ? undefined
      : new CertificateController({
          store: parts.certificates.store,
          policy: parts.certificates.policy,
          files: parts.files,
          clock,
          logger: log,
        });
  let caBundle: string | undefined;
  if (certificates !== undefined) {
    // The server cannot start without a certificate: a few tries, then a clear failure.
    for (let attempt = 1; ; attempt++) {
      try {
        caBundle = (await certificates.reconcile(stopping.signal)).caBundle;
        break;
      } catch (error) {
        if (attempt >= startupAttempts) {
          await parts.close();
          throw new Error(`self-managed TLS: ${(error as Error).message}`);
        }
        log.warn({ err: (error as Error).message, attempt }, 'self-managed TLS not ready yet; retrying');
        await clock.sleep(Math.min(retryMs, parts.reconcileIntervalMs) * attempt, stopping.signal).catch(() => {});
      }
    }
  }

  let notReady: () => string[] = () => ['not started'];
  const registration = parts.registration;
  const bundleFile = registration?.caBundleFile;
  const registrar =
    registration === undefined
      ? undefined
      : new Registrar({
          store: registration.store,
          name: registration.name,
          caBundle: async () => {
            if (certificates !== undefined) return caBundle;
            if (bundleFile === undefined) return undefined;
            // An issuer that writes no ca.crt (a public ACME one) leaves the system roots to verify.
            const bundle = await readFile(bundleFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
              if (error.code === 'ENOENT') return '';
              throw new Error(`cannot read the CA bundle ${bundleFile}: ${error.message}`);
            });
            return bundle.trim() === '' ? undefined : bundle;
          },
          notReady: () => notReady(),
          probe: (webhook) =>
            probeWebhook(webhook, {
              timeoutMs: probeTimeoutMs,
              signal: stopping.signal,
              ...(overrides.redirect ? { redirect: overrides.redirect } : {}),
            }),
          logger: log,
        });

  let status: RegistrationStatus | undefined;
  const reported = new Map<string, string>();
  const report = (outcome: RegistrationOutcome) => {
    status?.observe(outcome);
    const line = `${outcome.state}${outcome.detail ? `: ${outcome.detail}` : ''}`;
    if (reported.get(outcome.kind) === line) return;
    reported.set(outcome.kind, line);
    const fields = { kind: outcome.kind, name: registration?.name, state: outcome.state, detail: outcome.detail };
    if (outcome.state === RegistrationState.Written) log.info(fields, 'webhooks registered');
    else if (outcome.state === RegistrationState.Waiting || outcome.state === RegistrationState.Invalid)
      log.warn(fields, 'webhooks not registered yet');
    else log.debug(fields, 'registration checked');
  };

  async function pass(): Promise<boolean> {
    let settled = true;
    try {
      if (certificates !== undefined) caBundle = (await certificates.reconcile(stopping.signal)).caBundle;
      for (const outcome of (await registrar?.reconcile(stopping.signal)) ?? []) {
        report(outcome);
        if (
          outcome.state !== RegistrationState.UpToDate &&
          outcome.state !== RegistrationState.Absent &&
          outcome.state !== RegistrationState.Written
        )
          settled = false;
      }
    } catch (error) {
      if (!stopping.signal.aborted) log.warn({ err: (error as Error).message }, 'registration or certificate check failed; retrying');
      settled = false;
    }
    return settled;
  }

  let loop: Promise<void> | undefined;
  return {
    run(readiness, watch) {
      notReady = readiness;
      if (registration !== undefined && watch !== undefined && status === undefined)
        status = new RegistrationStatus({ ...watch, name: registration.name, logger: log });
      loop ??= (async () => {
        while (!stopping.signal.aborted) {
          const settled = await pass();
          await clock
            .sleep(settled ? parts.reconcileIntervalMs : Math.min(retryMs, parts.reconcileIntervalMs), stopping.signal)
            .catch(() => {});
        }
      })();
    },
    async stop() {
      stopping.abort(new Error('shutting down'));
      await loop;
      await parts.close();
    },
  };
}
