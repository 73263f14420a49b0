// Writes a CA and a CA-signed serving certificate for the webhook Service, for local runs (`npm start`
// calls it with --if-missing) and for bring-your-own-certificate installs of the Helm chart.
//   node certs/generate.ts [--service NAME] [--namespace NS] [--out DIR] [--days N] [--no-localhost] [--if-missing]
// Files: ca.crt (the caBundle), tls.crt, tls.key. Private keys are written with mode 0600; the CA's own
// key is never written, so a fresh run means a fresh CA (and a new caBundle).
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateCertificates, serviceDnsNames } from '../src/tls/generate.ts';

export interface CertificateFilesOptions {
  service: string;
  namespace: string;
  outDir: string;
  /** Also valid for localhost, 127.0.0.1 and ::1 (a server run on this machine). */
  localhost: boolean;
  validityDays: number;
  ifMissing: boolean;
}

export interface CertificateFilesResult {
  written: boolean;
  files: { caCert: string; cert: string; key: string };
}

const usage = 'usage: node certs/generate.ts [--service NAME] [--namespace NS] [--out DIR] [--days N] [--no-localhost] [--if-missing]';

export function parseCertificateArgs(argv: string[], defaultOutDir: string): CertificateFilesOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    allowNegative: true,
    options: {
      service: { type: 'string', default: 'admission-chain' },
      namespace: { type: 'string', default: 'admission-chain' },
      out: { type: 'string', default: defaultOutDir },
      days: { type: 'string', default: '365' },
      localhost: { type: 'boolean', default: true },
      'if-missing': { type: 'boolean', default: false },
    },
  });
  const validityDays = Number(values.days);
  if (!Number.isInteger(validityDays) || validityDays < 1)
    throw new Error(`--days must be a positive integer, got ${values.days}\n${usage}`);
  for (const [flag, value] of [
    ['--service', values.service],
    ['--namespace', values.namespace],
  ] as const) {
    // A DNS-1123 label: what Service and Namespace names are.
    if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(value))
      throw new Error(`${flag} must be a DNS-1123 label, got ${JSON.stringify(value)}\n${usage}`);
  }
  return {
    service: values.service,
    namespace: values.namespace,
    outDir: resolve(values.out),
    localhost: values.localhost,
    validityDays,
    ifMissing: values['if-missing'],
  };
}

export async function writeCertificateFiles(options: CertificateFilesOptions): Promise<CertificateFilesResult> {
  const files = { caCert: join(options.outDir, 'ca.crt'), cert: join(options.outDir, 'tls.crt'), key: join(options.outDir, 'tls.key') };
  if (options.ifMissing && existsSync(files.cert) && existsSync(files.key)) return { written: false, files };
  const dnsNames = serviceDnsNames(options.service, options.namespace);
  const generated = await generateCertificates({
    commonName: `${options.service}.${options.namespace}.svc`,
    dnsNames: options.localhost ? [...dnsNames, 'localhost'] : dnsNames,
    ipAddresses: options.localhost ? ['127.0.0.1', '::1'] : [],
    validityDays: options.validityDays,
  });
  mkdirSync(options.outDir, { recursive: true });
  writeAtomically(files.caCert, generated.caCert, 0o644);
  writeAtomically(files.cert, generated.cert, 0o644);
  writeAtomically(files.key, generated.key, 0o600);
  return { written: true, files };
}

// Written aside and renamed: a server watching these files never reads half a key, and the mode is
// set before any content exists (an existing file's mode would otherwise survive an overwrite).
function writeAtomically(path: string, content: string, mode: number): void {
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, content, { mode, flag: 'w' });
  chmodSync(partial, mode);
  renameSync(partial, path);
}

async function main(argv: string[]): Promise<number> {
  const defaultOutDir = fileURLToPath(new URL('.', import.meta.url));
  let options: CertificateFilesOptions;
  try {
    options = parseCertificateArgs(argv, defaultOutDir);
  } catch (error) {
    const message = (error as Error).message;
    process.stderr.write(message.includes(usage) ? `${message}\n` : `${message}\n${usage}\n`);
    return 2;
  }
  const result = await writeCertificateFiles(options);
  if (!result.written) {
    process.stdout.write(`certificates already present in ${options.outDir}; left as they are\n`);
    return 0;
  }
  process.stdout.write(
    `wrote ${result.files.caCert}, ${result.files.cert}, ${result.files.key} (mode 0600)\n` +
      `for ${serviceDnsNames(options.service, options.namespace).join(', ')}${options.localhost ? ', localhost, 127.0.0.1, ::1' : ''}\n`,
  );
  return 0;
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
