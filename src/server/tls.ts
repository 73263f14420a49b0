// Serving certificates that follow their files: a Secret volume update (an atomic symlink swap of
// ..data), cert-manager rotation or a hand edit is picked up without dropping connections.
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createSecureContext } from 'node:tls';
import { certificateNotAfter } from '../tls/expiry.ts';
import type { Logger } from '../ports/logger.ts';

export interface KeyPair {
  cert: string;
  key: string;
  notAfter: number;
}

export interface CertificateWatcherOptions {
  certFile: string;
  keyFile: string;
  logger: Logger;
  /** Poll as a safety net for file systems where watch events are missed. */
  pollIntervalMs?: number;
  onReload: (pair: KeyPair) => void;
  onError?: (error: Error) => void;
}

/** Reads and checks a key pair; the error names the file and what is wrong with it. */
export async function readKeyPair(certFile: string, keyFile: string): Promise<KeyPair> {
  const [cert, key] = await Promise.all([
    readFile(certFile, 'utf8').catch((e: Error) => {
      throw new Error(`cannot read TLS certificate ${certFile}: ${e.message}`);
    }),
    readFile(keyFile, 'utf8').catch((e: Error) => {
      throw new Error(`cannot read TLS private key ${keyFile}: ${e.message}`);
    }),
  ]);
  try {
    createSecureContext({ cert, key });
  } catch (e) {
    throw new Error(`TLS certificate ${certFile} and key ${keyFile} are not a usable pair: ${(e as Error).message}`);
  }
  return { cert, key, notAfter: certificateNotAfter(cert) };
}

export class CertificateWatcher {
  private readonly options: CertificateWatcherOptions;
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private current = '';
  private reloading = false;

  constructor(options: CertificateWatcherOptions) {
    this.options = options;
  }

  /** Remembers what is being served so only real changes trigger a reload. */
  start(initial: KeyPair): void {
    this.current = initial.cert + initial.key;
    const dirs = new Set([dirname(this.options.certFile), dirname(this.options.keyFile)]);
    for (const dir of dirs) {
      try {
        const watcher = watch(dir, () => this.schedule());
        watcher.on('error', () => {});
        watcher.unref();
        this.watchers.push(watcher);
      } catch (error) {
        this.options.logger.warn({ dir, err: error }, 'cannot watch certificate directory; relying on polling');
      }
    }
    this.timer = setInterval(() => void this.reload(), this.options.pollIntervalMs ?? 10_000);
    this.timer.unref();
  }

  stop(): void {
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
    if (this.timer) clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
  }

  private schedule(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.reload(), 100);
    this.debounce.unref();
  }

  /** Loads the files again; a half-written or mismatched pair keeps the old one in service. */
  async reload(): Promise<boolean> {
    if (this.reloading) return false;
    this.reloading = true;
    try {
      const pair = await readKeyPair(this.options.certFile, this.options.keyFile);
      if (pair.cert + pair.key === this.current) return false;
      this.current = pair.cert + pair.key;
      this.options.onReload(pair);
      this.options.logger.info({ notAfter: new Date(pair.notAfter).toISOString() }, 'serving certificate reloaded');
      return true;
    } catch (error) {
      this.options.logger.warn({ err: (error as Error).message }, 'serving certificate not reloaded; keeping the previous one');
      this.options.onError?.(error as Error);
      return false;
    } finally {
      this.reloading = false;
    }
  }
}
