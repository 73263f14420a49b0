// Certificate expiry, for the serving certificate's metric (no certificate library needed).
import { X509Certificate } from 'node:crypto';

/** When a PEM certificate stops being valid, in epoch milliseconds. */
export function certificateNotAfter(pem: string): number {
  return new Date(new X509Certificate(pem).validTo).getTime();
}
