// Given what the Secret holds and the time, what it should hold: a CA (two while one replaces the
// other), and a serving certificate signed by the CA that has been trusted long enough, covering
// every required name, renewed well before it expires. Anything unreadable is replaced.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { type SecretContents, SecretKeys } from '../ports/certificate-secret-store.ts';
import type { KeyPairPem } from '../tls/generate.ts';
import { joinPem, pemBlocks } from './pem.ts';
import { backdateMs, type CertificatePolicy, caOverlapMs, caRenewBeforeMs } from './policy.ts';

export interface Plan {
  /** What the Secret should hold (equal to the input when nothing changes). */
  contents: SecretContents;
  /** Why it changed; empty when it did not. */
  reasons: string[];
}

interface Authority {
  cert: string;
  key: string;
  x509: X509Certificate;
}

const time = (value: string) => Date.parse(value);

export async function planSecret(current: SecretContents, policy: CertificatePolicy, nowMs: number): Promise<Plan> {
  const reasons: string[] = [];
  let authorities = usableAuthorities(current, nowMs);
  const newest = authorities[0];
  if (newest === undefined) {
    reasons.push('no usable CA');
    authorities = [await newAuthority(policy, nowMs)];
  } else if (time(newest.x509.validTo) - nowMs < caRenewBeforeMs(policy)) {
    reasons.push(`CA expires ${newest.x509.validTo}`);
    authorities = [await newAuthority(policy, nowMs), newest];
  } else {
    authorities = authorities.slice(0, 2);
  }
  const signer = signingAuthority(authorities, policy, nowMs);
  let serving = { cert: current[SecretKeys.cert] ?? '', key: current[SecretKeys.key] ?? '' };
  const problem = servingProblem(serving, signer, policy, nowMs);
  if (problem !== undefined) {
    reasons.push(problem);
    const notBefore = nowMs - backdateMs;
    const notAfter = Math.min(nowMs + policy.durationMs, time(signer.x509.validTo));
    serving = await (await generator()).issueServingCertificate({
      authority: signer,
      commonName: policy.commonName,
      names: [...policy.names],
      validity: { notBefore: new Date(notBefore), notAfter: new Date(notAfter) },
    });
  }
  const contents: SecretContents = {
    [SecretKeys.caCert]: joinPem(authorities.map((a) => a.cert)),
    [SecretKeys.caKey]: joinPem(authorities.map((a) => a.key)),
    [SecretKeys.cert]: serving.cert,
    [SecretKeys.key]: serving.key,
  };
  const unchanged = Object.values(SecretKeys).every((k) => (contents[k] ?? '') === (current[k] ?? ''));
  return unchanged ? { contents: current, reasons: [] } : { contents, reasons: reasons.length > 0 ? reasons : ['normalised'] };
}

/** The bundle's CAs that parse, pair with their keys and have not expired, newest first. */
function usableAuthorities(current: SecretContents, nowMs: number): Authority[] {
  const certs = pemBlocks(current[SecretKeys.caCert] ?? '');
  const keys = pemBlocks(current[SecretKeys.caKey] ?? '');
  if (certs.length === 0 || certs.length !== keys.length) return [];
  const authorities: Authority[] = [];
  for (const [i, cert] of certs.entries()) {
    try {
      const x509 = new X509Certificate(cert);
      const key = keys[i] as string;
      if (!x509.ca || !x509.checkPrivateKey(createPrivateKey(key))) return [];
      if (time(x509.validTo) > nowMs) authorities.push({ cert, key, x509 });
    } catch {
      return [];
    }
  }
  return authorities.sort((a, b) => time(b.x509.validFrom) - time(a.x509.validFrom));
}

// The newest CA signs once it has been in the bundle for the overlap; until then the one before it.
function signingAuthority(authorities: Authority[], policy: CertificatePolicy, nowMs: number): Authority {
  const [newest, previous] = authorities as [Authority, Authority | undefined];
  if (previous !== undefined && nowMs - (time(newest.x509.validFrom) + backdateMs) < caOverlapMs(policy)) return previous;
  return newest;
}

function servingProblem(
  serving: { cert: string; key: string },
  signer: Authority,
  policy: CertificatePolicy,
  nowMs: number,
): string | undefined {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(serving.cert);
    if (!x509.checkPrivateKey(createPrivateKey(serving.key))) return 'serving key does not match its certificate';
  } catch {
    return 'no usable serving certificate';
  }
  if (!x509.checkIssued(signer.x509) || !x509.verify(signer.x509.publicKey)) return 'serving certificate not signed by the signing CA';
  const missing = policy.names.filter(
    (name) => (isIP(name) !== 0 ? x509.checkIP(name) : x509.checkHost(name, { subject: 'never' })) === undefined,
  );
  if (missing.length > 0) return `serving certificate does not cover ${missing.join(', ')}`;
  if (time(x509.validTo) - nowMs < policy.renewBeforeMs) return `serving certificate expires ${x509.validTo}`;
  return undefined;
}

async function newAuthority(policy: CertificatePolicy, nowMs: number): Promise<Authority> {
  const notBefore = new Date(nowMs - backdateMs);
  const pair: KeyPairPem = await (await generator()).generateAuthority(`${policy.commonName} CA ${new Date(nowMs).toISOString()}`, {
    notBefore,
    notAfter: new Date(nowMs + policy.caDurationMs),
  });
  return { ...pair, x509: new X509Certificate(pair.cert) };
}

// The certificate library (about 6 MiB resident) loads only in a replica that issues something;
// replicas that adopt what the Secret holds check it with node:crypto alone.
const generator = () => import('../tls/generate.ts');
