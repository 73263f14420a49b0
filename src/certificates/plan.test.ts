// The rotation planner over real certificates: what a fresh, a healthy, an ageing and a broken
// Secret turn into, at chosen moments (certificates dated by the clock given, not the wall clock).
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type SecretContents, SecretKeys } from '../ports/certificate-secret-store.ts';
import { generateAuthority, issueServingCertificate } from '../tls/generate.ts';
import { pemBlocks } from './pem.ts';
import { planSecret } from './plan.ts';
import { type CertificatePolicy, caOverlapMs, caRenewBeforeMs } from './policy.ts';

const day = 86_400_000;
const policy: CertificatePolicy = {
  commonName: 'ac.admission-chain.svc',
  names: ['ac.admission-chain.svc', 'ac.admission-chain', 'ac', '10.0.0.7'],
  durationMs: 90 * day,
  renewBeforeMs: 30 * day,
  caDurationMs: 3650 * day,
};
const t0 = Date.UTC(2030, 0, 1);

const x509 = (pem: string | undefined) => new X509Certificate(pem ?? '');
const caCerts = (contents: SecretContents) => pemBlocks(contents[SecretKeys.caCert] ?? '').map((pem) => new X509Certificate(pem));
const issuedBy = (contents: SecretContents, ca: X509Certificate) =>
  x509(contents[SecretKeys.cert]).checkIssued(ca) && x509(contents[SecretKeys.cert]).verify(ca.publicKey);

async function secretWith(options: {
  caFrom: number;
  caTo: number;
  servingFrom: number;
  servingTo: number;
  names?: string[];
}): Promise<SecretContents> {
  const ca = await generateAuthority('old CA', { notBefore: new Date(options.caFrom), notAfter: new Date(options.caTo) });
  const serving = await issueServingCertificate({
    authority: ca,
    commonName: policy.commonName,
    names: options.names ?? [...policy.names],
    validity: { notBefore: new Date(options.servingFrom), notAfter: new Date(options.servingTo) },
  });
  return { [SecretKeys.caCert]: ca.cert, [SecretKeys.caKey]: ca.key, [SecretKeys.cert]: serving.cert, [SecretKeys.key]: serving.key };
}

describe('planSecret', () => {
  it('an empty Secret gets a CA and a serving certificate it signed, for every name, for the configured lifetime', async () => {
    const plan = await planSecret({}, policy, t0);
    expect(plan.reasons).toEqual(['no usable CA', 'no usable serving certificate']);
    const [ca, ...others] = caCerts(plan.contents);
    expect(others).toEqual([]);
    expect(ca?.ca).toBe(true);
    expect(issuedBy(plan.contents, ca!)).toBe(true);
    const serving = x509(plan.contents[SecretKeys.cert]);
    expect(serving.ca).toBe(false);
    for (const name of ['ac.admission-chain.svc', 'ac.admission-chain', 'ac'])
      expect(serving.checkHost(name, { subject: 'never' })).toBe(name);
    expect(serving.checkIP('10.0.0.7')).toBe('10.0.0.7');
    expect(Date.parse(serving.validTo)).toBe(t0 + policy.durationMs);
    expect(Date.parse(ca!.validTo)).toBe(t0 + policy.caDurationMs);
  });

  it('a healthy Secret is left exactly as it is', async () => {
    const healthy = (await planSecret({}, policy, t0)).contents;
    const later = await planSecret(healthy, policy, t0 + 59 * day);
    expect(later).toEqual({ contents: healthy, reasons: [] });
  });

  it('a serving certificate inside its renewal window is re-issued by the same CA', async () => {
    const healthy = (await planSecret({}, policy, t0)).contents;
    const plan = await planSecret(healthy, policy, t0 + 61 * day);
    expect(plan.reasons).toEqual([expect.stringMatching(/^serving certificate expires /)]);
    expect(plan.contents[SecretKeys.caCert]).toBe(healthy[SecretKeys.caCert]);
    expect(plan.contents[SecretKeys.cert]).not.toBe(healthy[SecretKeys.cert]);
    expect(Date.parse(x509(plan.contents[SecretKeys.cert]).validTo)).toBe(t0 + 61 * day + policy.durationMs);
  });

  it.each([
    ['a name the certificate lacks', { names: ['ac.admission-chain.svc'] }, /does not cover ac\.admission-chain, ac, 10\.0\.0\.7/],
    ['an expired serving certificate', { servingTo: t0 - day }, /expires/],
  ])('re-issues the serving certificate for %s', async (_label, override, reason) => {
    const secret = await secretWith({
      caFrom: t0 - day,
      caTo: t0 + 3000 * day,
      servingFrom: t0 - 100 * day,
      servingTo: t0 + 60 * day,
      ...override,
    });
    const plan = await planSecret(secret, policy, t0);
    expect(plan.reasons.join()).toMatch(reason);
    expect(caCerts(plan.contents).map((c) => c.fingerprint256)).toEqual(caCerts(secret).map((c) => c.fingerprint256));
    expect(issuedBy(plan.contents, caCerts(secret)[0]!)).toBe(true);
  });

  it.each([
    [
      'garbage',
      { [SecretKeys.caCert]: 'not a certificate', [SecretKeys.caKey]: 'nor a key', [SecretKeys.cert]: 'x', [SecretKeys.key]: 'y' },
    ],
    ['a CA key that does not match', 'swap-ca-key'],
    ['a serving key that does not match', 'swap-serving-key'],
  ] as const)('replaces %s', async (_label, broken) => {
    const a = (await planSecret({}, policy, t0)).contents;
    const b = (await planSecret({}, policy, t0)).contents;
    const secret: SecretContents =
      broken === 'swap-ca-key'
        ? { ...a, [SecretKeys.caKey]: b[SecretKeys.caKey] }
        : broken === 'swap-serving-key'
          ? { ...a, [SecretKeys.key]: b[SecretKeys.key] }
          : broken;
    const plan = await planSecret(secret, policy, t0);
    expect(plan.reasons.length).toBeGreaterThan(0);
    const [ca] = caCerts(plan.contents);
    expect(issuedBy(plan.contents, ca!)).toBe(true);
    expect(
      x509(plan.contents[SecretKeys.cert]).checkPrivateKey(
        await import('node:crypto').then((c) => c.createPrivateKey(plan.contents[SecretKeys.key]!)),
      ),
    ).toBe(true);
    if (broken === 'swap-serving-key') expect(plan.contents[SecretKeys.caCert]).toBe(a[SecretKeys.caCert]);
  });

  it('rotates an ageing CA with an overlap: the new CA is trusted first, signs only after the overlap, and the old one stays trusted', async () => {
    const caTo = t0 + caRenewBeforeMs(policy) - day;
    const ageing = await secretWith({ caFrom: t0 - 3000 * day, caTo, servingFrom: t0 - 10 * day, servingTo: t0 + 80 * day });
    const [oldCa] = caCerts(ageing);

    // 1. The new CA joins the bundle (first); the serving certificate is untouched.
    const added = await planSecret(ageing, policy, t0);
    expect(added.reasons).toEqual([`CA expires ${oldCa!.validTo}`]);
    const [newCa, stillOld] = caCerts(added.contents);
    expect(stillOld?.fingerprint256).toBe(oldCa!.fingerprint256);
    expect(newCa?.fingerprint256).not.toBe(oldCa!.fingerprint256);
    expect(added.contents[SecretKeys.cert]).toBe(ageing[SecretKeys.cert]);

    // 2. Within the overlap nothing changes, even though the new CA exists.
    expect((await planSecret(added.contents, policy, t0 + caOverlapMs(policy) - 60_000)).reasons).toEqual([]);

    // 3. After the overlap the serving certificate moves to the new CA; both CAs stay in the bundle.
    const moved = await planSecret(added.contents, policy, t0 + caOverlapMs(policy) + 60_000);
    expect(moved.reasons).toEqual(['serving certificate not signed by the signing CA']);
    expect(issuedBy(moved.contents, newCa!)).toBe(true);
    expect(caCerts(moved.contents).map((c) => c.fingerprint256)).toEqual([newCa!.fingerprint256, oldCa!.fingerprint256]);

    // 4. Once the old CA has expired it leaves the bundle.
    const expired = await planSecret(moved.contents, policy, Date.parse(oldCa!.validTo) + 1000);
    expect(caCerts(expired.contents).map((c) => c.fingerprint256)).toEqual([newCa!.fingerprint256]);
  });

  it('never issues a serving certificate that outlives the CA signing it', async () => {
    const short: CertificatePolicy = { ...policy, caDurationMs: 400 * day };
    const plan = await planSecret({}, short, t0);
    const serving = x509(plan.contents[SecretKeys.cert]);
    const [ca] = caCerts(plan.contents);
    expect(Date.parse(serving.validTo)).toBeLessThanOrEqual(Date.parse(ca!.validTo));
  });
});
