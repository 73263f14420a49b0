// What the self-managed certificates must be: the names they cover and how long they live. The CA
// is renewed when it has less than two serving lifetimes left, and a new CA only signs once it has
// been in the caBundle for a while, so the API server trusts it before any replica presents it.

export interface CertificatePolicy {
  /** The serving certificate's common name (the Service's <name>.<namespace>.svc). */
  commonName: string;
  /** DNS names and IP addresses the serving certificate must be valid for. */
  names: readonly string[];
  /** Lifetime of a serving certificate. */
  durationMs: number;
  /** Re-issue the serving certificate when it has less than this left. */
  renewBeforeMs: number;
  /** Lifetime of a CA. */
  caDurationMs: number;
}

/** A new CA enters the caBundle this long before it signs anything: a day, or a quarter of a serving lifetime if shorter. */
export function caOverlapMs(policy: CertificatePolicy): number {
  return Math.min(86_400_000, Math.floor(policy.durationMs / 4));
}

/** A CA with less than this left is replaced (and kept in the bundle until it expires). */
export function caRenewBeforeMs(policy: CertificatePolicy): number {
  return 2 * policy.durationMs;
}

/** Certificates start this much in the past, for clocks a little behind ours. */
export const backdateMs = 5 * 60_000;

/** Why a policy cannot work, or undefined when it can. */
export function policyProblem(policy: CertificatePolicy): string | undefined {
  if (policy.names.length === 0) return 'at least one DNS name is needed';
  if (policy.renewBeforeMs <= 0 || policy.renewBeforeMs >= policy.durationMs)
    return 'the renewal window must be positive and shorter than the certificate lifetime';
  if (policy.caDurationMs <= 3 * policy.durationMs) return 'the CA lifetime must exceed three serving certificate lifetimes';
  return undefined;
}
