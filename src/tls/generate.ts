// A CA and a CA-signed serving certificate, for local runs, bring-your-own installs, tests and the
// self-managed certificate mode (src/certificates), all through the selfsigned library.
import { isIP } from 'node:net';
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

/** A certificate and its private key, both PEM. */
export interface KeyPairPem {
  cert: string;
  key: string;
}

export interface Validity {
  notBefore: Date;
  notAfter: Date;
}

/** A self-signed CA that may sign certificates (and nothing else). */
export async function generateAuthority(commonName: string, validity: Validity): Promise<KeyPairPem> {
  const ca = await selfsigned.generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: validity.notBefore,
    notAfterDate: validity.notAfter,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  return { cert: ca.cert, key: ca.private };
}

export interface ServingCertificateOptions {
  authority: KeyPairPem;
  commonName: string;
  /** DNS names and IP addresses the certificate is valid for; IP literals become IP SANs. */
  names: string[];
  validity: Validity;
  clientAuth?: boolean;
}

/** A serving (TLS server) certificate signed by the authority, valid for the given names. */
export async function issueServingCertificate(options: ServingCertificateOptions): Promise<KeyPairPem> {
  const unique = [options.commonName, ...options.names].filter((n, i, all) => all.indexOf(n) === i);
  const altNames = unique.map((name) => (isIP(name) === 0 ? { type: 2 as const, value: name } : { type: 7 as const, ip: name }));
  const serving = await selfsigned.generate([{ name: 'commonName', value: options.commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: options.validity.notBefore,
    notAfterDate: options.validity.notAfter,
    ca: { key: options.authority.key, cert: options.authority.cert },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true, clientAuth: options.clientAuth ?? false },
      { name: 'subjectAltName', altNames },
    ],
  });
  return { cert: serving.cert, key: serving.private };
}

export async function generateCertificates(options: CertificateOptions): Promise<GeneratedCertificates> {
  const validityDays = options.validityDays ?? 365;
  const notBefore = new Date(Date.now() - 60_000);
  const validity = { notBefore, notAfter: new Date(notBefore.getTime() + validityDays * 86_400_000) };
  const authority = await generateAuthority(`${options.commonName}-ca`, validity);
  const serving = await issueServingCertificate({
    authority,
    commonName: options.commonName,
    names: [...(options.dnsNames ?? []), ...(options.ipAddresses ?? [])],
    validity,
    ...(options.clientAuth === undefined ? {} : { clientAuth: options.clientAuth }),
  });
  return { caCert: authority.cert, caKey: authority.key, cert: serving.cert, key: serving.key };
}

/** The DNS names a webhook Service is reached by: svc, svc.ns, svc.ns.svc, svc.ns.svc.cluster.local. */
export function serviceDnsNames(service: string, namespace: string): string[] {
  return [service, `${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`];
}

export { certificateNotAfter } from './expiry.ts';
