// Writes a fresh CA and a localhost serving certificate into a temporary directory.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GeneratedCertificates, generateCertificates } from '../../src/tls/generate.ts';

export interface CertFiles extends GeneratedCertificates {
  dir: string;
  certFile: string;
  keyFile: string;
}

export async function writeTestCertificates(dir?: string): Promise<CertFiles> {
  const target = dir ?? (await mkdtemp(join(tmpdir(), 'admission-chain-certs-')));
  const generated = await generateCertificates({ commonName: 'localhost', ipAddresses: ['127.0.0.1'] });
  const certFile = join(target, 'tls.crt');
  const keyFile = join(target, 'tls.key');
  await writeFile(certFile, generated.cert);
  await writeFile(keyFile, generated.key, { mode: 0o600 });
  return { ...generated, dir: target, certFile, keyFile };
}
