// The documented divergences: where a real cluster answers differently with our webhook than with
// the in-tree plugin, for a reason that lies in how kube-apiserver runs webhooks rather than in our
// code. Each entry says why, names the upstream code the difference comes from, and recognises its
// disagreements; docs/fidelity.md words each one for users. Anything the oracle finds that no entry
// recognises fails the run.
import type { Outcome } from './compare.ts';
import type { OracleCase } from './generate.ts';
import type { OraclePlugin } from './servers.ts';

export interface Divergence {
  id: string;
  plugins: readonly OraclePlugin[];
  /** Why the answers differ. */
  reason: string;
  /** The upstream code the difference comes from. */
  upstream: string;
  matches(oracleCase: OracleCase, inTree: Outcome, webhook: Outcome): boolean;
}

export const divergences: readonly Divergence[] = [];
