// A CA and a CA-signed serving certificate, for local runs, bring-your-own installs and tests.
import selfsigned from 'selfsigned';

export interface CertificateOptions {
  /** The serving certificate's common name (and first DNS SAN). */
  commonName: string;
  dnsNames?: string[];
  ipAddresses?: string[];
  /** Days the certificates stay valid; default 365. */
  validityDays?: number;
  /** Also mark the serving certificate for client authentication (for test clients). */
  clientAuth?: boolean;
}

export interface GeneratedCertificates {
  caCert: string;
  caKey: string;
  cert: string;
  key: string;
}

export async function generateCertificates(options: CertificateOptions): Promise<GeneratedCertificates> {
  const validityDays = options.validityDays ?? 365;
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(notBeforeDate.getTime() + validityDays * 86_400_000);
  const ca = await selfsigned.generate([{ name: 'commonName', value: `${options.commonName}-ca` }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const dnsNames = [options.commonName, ...(options.dnsNames ?? [])].filter((n, i, all) => all.indexOf(n) === i);
  const altNames = [
    ...dnsNames.map((value) => ({ type: 2 as const, value })),
    ...(options.ipAddresses ?? []).map((ip) => ({ type: 7 as const, ip })),
  ];
  const serving = await selfsigned.generate([{ name: 'commonName', value: options.commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true, clientAuth: options.clientAuth ?? false },
      { name: 'subjectAltName', altNames },
    ],
  });
  return { caCert: ca.cert, caKey: ca.private, cert: serving.cert, key: serving.private };
}

/** The DNS names a webhook Service is reached by: svc, svc.ns, svc.ns.svc, svc.ns.svc.cluster.local. */
export function serviceDnsNames(service: string, namespace: string): string[] {
  return [service, `${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`];
}

export { certificateNotAfter } from './expiry.ts';
