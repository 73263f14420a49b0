// Serving certificates that follow their files: a Secret volume update (an atomic symlink swap of
// ..data), cert-manager rotation or a hand edit is picked up without dropping connections.
import { type FSWatcher, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { Logger } from '../ports/logger.ts';
import { certificateNotAfter } from '../tls/expiry.ts';

export interface KeyPair {
  cert: string;
  key: string;
  notAfter: number;
  /** The CA bundle callers' client certificates must chain to, when client authentication is on. */
  clientCa?: string;
}

/**
 * TLS 1.2 with ECDHE key exchange and AEAD ciphers only, and TLS 1.3: Node's default list still
 * offers CBC with SHA-1, and static RSA key exchange (no forward secrecy) with RSA certificates.
 * kube-apiserver's Go client speaks all of these.
 */
export const servingCiphers = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

/** The secure context the webhook serves with, at start and after every reload. */
export function servingTlsOptions(pair: KeyPair): SecureContextOptions {
  return {
    cert: pair.cert,
    key: pair.key,
    minVersion: 'TLSv1.2',
    ciphers: servingCiphers,
    honorCipherOrder: true,
    ...(pair.clientCa !== undefined ? { ca: pair.clientCa } : {}),
  };
}

export interface CertificateWatcherOptions {
  certFile: string;
  keyFile: string;
  /** Re-read with the pair when set (a rotated client CA takes effect like a rotated certificate). */
  clientCaFile?: string;
  logger: Logger;
  /** Poll as a safety net for file systems where watch events are missed. */
  pollIntervalMs?: number;
  onReload: (pair: KeyPair) => void;
  onError?: (error: Error) => void;
}

/** Reads and checks a key pair (and the client CA); the error names the file and what is wrong with it. */
export async function readKeyPair(certFile: string, keyFile: string, clientCaFile?: string): Promise<KeyPair> {
  // Read together, reported in order: with both files missing, the certificate is named (the
  // first rejection of a Promise.all would name whichever read failed first).
  const reads = await Promise.allSettled([
    readFile(certFile, 'utf8'),
    readFile(keyFile, 'utf8'),
    clientCaFile === undefined ? Promise.resolve(undefined) : readFile(clientCaFile, 'utf8'),
  ]);
  const failures = [
    `cannot read TLS certificate ${certFile}`,
    `cannot read TLS private key ${keyFile}`,
    `cannot read client CA ${clientCaFile}`,
  ];
  reads.forEach((read, i) => {
    if (read.status === 'rejected') throw new Error(`${failures[i]}: ${(read.reason as Error).message}`);
  });
  const [cert, key, clientCa] = reads.map((read) => (read as PromiseFulfilledResult<string | undefined>).value) as [
    string,
    string,
    string | undefined,
  ];
  try {
    createSecureContext({ cert, key });
  } catch (e) {
    throw new Error(`TLS certificate ${certFile} and key ${keyFile} are not a usable pair: ${(e as Error).message}`);
  }
  if (clientCa !== undefined) {
    // An empty or garbled bundle would trust nobody (or fail later, at the first handshake).
    if (!clientCa.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`client CA ${clientCaFile} holds no PEM certificate`);
    try {
      createSecureContext({ ca: clientCa });
    } catch (e) {
      throw new Error(`client CA ${clientCaFile} is not a usable CA bundle: ${(e as Error).message}`);
    }
  }
  return { cert, key, notAfter: certificateNotAfter(cert), ...(clientCa !== undefined ? { clientCa } : {}) };
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
    this.current = fingerprint(initial);
    const files = [
      this.options.certFile,
      this.options.keyFile,
      ...(this.options.clientCaFile !== undefined ? [this.options.clientCaFile] : []),
    ];
    const dirs = new Set(files.map((file) => dirname(file)));
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
      const pair = await readKeyPair(this.options.certFile, this.options.keyFile, this.options.clientCaFile);
      if (fingerprint(pair) === this.current) return false;
      this.current = fingerprint(pair);
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

/** What is being served, to tell a real change from a touched file. */
function fingerprint(pair: KeyPair): string {
  return `${pair.cert}\n${pair.key}\n${pair.clientCa ?? ''}`;
}
