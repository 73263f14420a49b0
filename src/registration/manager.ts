// What the webhook manages in the cluster while it serves, in one loop: first the self-managed
// certificate (before the server starts, so there is something to serve), then its registration.
// Every replica runs the loop; the Secret's and the configurations' resourceVersions decide which
// write wins, and the others follow it. Loaded only when a flag asks for it (client-node is heavy).
import { readFile } from 'node:fs/promises';
import { clusterCertificateSecret } from '../adapters/cluster/certificate-secret.ts';
import { createKubeRequests } from '../adapters/cluster/kube.ts';
import { clusterWebhookConfigurations } from '../adapters/cluster/webhook-configurations.ts';
import { CertificateController } from '../certificates/controller.ts';
import { loadKubeConfig } from '../cluster-backend.ts';
import { systemClock, type Clock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import type { ManagementConfig } from './options.ts';
import { probeWebhook, type Redirect } from './probe.ts';
import { Registrar, RegistrationState, type RegistrationOutcome } from './registrar.ts';

export interface ManagementSettings extends ManagementConfig {
  kubeconfig: string | undefined;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
}

/** Test seams: where Service names really are, and the clock certificates are dated by. */
export interface ManagementOverrides {
  redirect?: Redirect;
  clock?: Clock;
}

export interface Management {
  /** Starts the loop; notReady is the server's readiness (registration waits for it). */
  run(notReady: () => string[]): void;
  stop(): Promise<void>;
}

const callTimeoutMs = 10_000;
const probeTimeoutMs = 5_000;
const startupAttempts = 5;
/** How soon a pass that could not finish (waiting, conflict, error) is tried again, at most. */
const retryMs = 2_000;

export async function startManagement(settings: ManagementSettings, logger: Logger, overrides: ManagementOverrides = {}): Promise<Management> {
  const log = logger.child({ subsystem: 'management' });
  const kubeConfig = loadKubeConfig(settings.kubeconfig);
  const requests = createKubeRequests(kubeConfig);
  const clock = overrides.clock ?? systemClock;
  const stopping = new AbortController();

  const certificates =
    settings.selfManagedTls === undefined
      ? undefined
      : new CertificateController({
          store: clusterCertificateSecret(kubeConfig, requests, settings.selfManagedTls.secret, callTimeoutMs),
          policy: settings.selfManagedTls.policy,
          files: { certFile: settings.tlsCertFile, keyFile: settings.tlsPrivateKeyFile },
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
          await requests.close();
          throw new Error(`self-managed TLS: ${(error as Error).message}`);
        }
        log.warn({ err: (error as Error).message, attempt }, 'self-managed TLS not ready yet; retrying');
        await clock.sleep(Math.min(retryMs, settings.reconcileIntervalMs) * attempt, stopping.signal).catch(() => {});
      }
    }
  }

  let notReady: () => string[] = () => ['not started'];
  const bundleFile = settings.webhookCaBundleFile;
  const registrar =
    settings.webhookConfiguration === undefined
      ? undefined
      : new Registrar({
          store: clusterWebhookConfigurations(kubeConfig, requests, callTimeoutMs),
          name: settings.webhookConfiguration,
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
          probe: (webhook) => probeWebhook(webhook, { timeoutMs: probeTimeoutMs, signal: stopping.signal, ...(overrides.redirect ? { redirect: overrides.redirect } : {}) }),
          logger: log,
        });

  const reported = new Map<string, string>();
  const report = (outcome: RegistrationOutcome) => {
    const line = `${outcome.state}${outcome.detail ? `: ${outcome.detail}` : ''}`;
    if (reported.get(outcome.kind) === line) return;
    reported.set(outcome.kind, line);
    const fields = { kind: outcome.kind, name: settings.webhookConfiguration, state: outcome.state, detail: outcome.detail };
    if (outcome.state === RegistrationState.Written) log.info(fields, 'webhooks registered');
    else if (outcome.state === RegistrationState.Waiting || outcome.state === RegistrationState.Invalid) log.warn(fields, 'webhooks not registered yet');
    else log.debug(fields, 'registration checked');
  };

  async function pass(): Promise<boolean> {
    let settled = true;
    try {
      if (certificates !== undefined) caBundle = (await certificates.reconcile(stopping.signal)).caBundle;
      for (const outcome of (await registrar?.reconcile(stopping.signal)) ?? []) {
        report(outcome);
        if (outcome.state !== RegistrationState.UpToDate && outcome.state !== RegistrationState.Absent && outcome.state !== RegistrationState.Written) settled = false;
      }
    } catch (error) {
      if (!stopping.signal.aborted) log.warn({ err: (error as Error).message }, 'registration or certificate check failed; retrying');
      settled = false;
    }
    return settled;
  }

  let loop: Promise<void> | undefined;
  return {
    run(readiness) {
      notReady = readiness;
      loop ??= (async () => {
        while (!stopping.signal.aborted) {
          const settled = await pass();
          await clock.sleep(settled ? settings.reconcileIntervalMs : Math.min(retryMs, settings.reconcileIntervalMs), stopping.signal).catch(() => {});
        }
      })();
    },
    async stop() {
      stopping.abort(new Error('shutting down'));
      await loop;
      await requests.close();
    },
  };
}
