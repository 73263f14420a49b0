// One pass of the self-managed certificates: read the Secret, plan what it should hold, write it if
// that changed (retrying on a conflicting write by another replica, whose result then wins), and put
// the serving pair on disk for the server. Every replica runs the same pass; the Secret is the one
// source of truth, so they all serve what it holds.

import type { CertificateSecretStore } from '../ports/certificate-secret-store.ts';
import { type SecretContents, SecretKeys } from '../ports/certificate-secret-store.ts';
import type { Clock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import { type ServingFiles, syncServingFiles } from './files.ts';
import { planSecret } from './plan.ts';
import type { CertificatePolicy } from './policy.ts';

export interface CertificateControllerOptions {
  store: CertificateSecretStore;
  policy: CertificatePolicy;
  files: ServingFiles;
  clock: Pick<Clock, 'now'>;
  logger: Logger;
}

export interface CertificatePass {
  /** The CA bundle (PEM) the webhooks must trust. */
  caBundle: string;
  /** Whether this replica wrote the Secret. */
  wroteSecret: boolean;
  /** Whether the serving files changed on disk. */
  wroteFiles: boolean;
}

const attempts = 3;

export class CertificateController {
  readonly #options: CertificateControllerOptions;

  constructor(options: CertificateControllerOptions) {
    this.#options = options;
  }

  async reconcile(signal?: AbortSignal): Promise<CertificatePass> {
    const { store, policy, clock, logger } = this.#options;
    let wroteSecret = false;
    let contents: SecretContents | undefined;
    for (let attempt = 1; attempt <= attempts && contents === undefined; attempt++) {
      const stored = await store.read(signal);
      const plan = await planSecret(stored.contents, policy, clock.now());
      if (plan.reasons.length === 0) {
        contents = stored.contents;
        break;
      }
      const written = await store.replace(plan.contents, stored.resourceVersion, signal);
      if (written === 'conflict') {
        logger.info({ secret: store.description, attempt }, 'certificate Secret changed under us; reading it again');
        continue;
      }
      logger.info({ secret: store.description, reasons: plan.reasons }, 'certificate Secret updated');
      wroteSecret = true;
      contents = written.contents;
    }
    if (contents === undefined) throw new Error(`certificate Secret ${store.description} kept changing under us (${attempts} attempts)`);
    const wroteFiles = await syncServingFiles(this.#options.files, {
      cert: contents[SecretKeys.cert] ?? '',
      key: contents[SecretKeys.key] ?? '',
    });
    if (wroteFiles)
      logger.info({ secret: store.description, certFile: this.#options.files.certFile }, 'serving certificate written from the Secret');
    return { caBundle: contents[SecretKeys.caCert] ?? '', wroteSecret, wroteFiles };
  }
}
