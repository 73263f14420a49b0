// What one kind of fact contributes to an explanation; the explainer puts the parts together.
import type { KubeObject } from '../api/types.ts';

export interface ExplanationPart {
  /** Whole sentences, for the audit annotation, the log line and `admission-chain explain`. */
  readonly lines: readonly string[];
  /** The few lines worth a warning, most useful first, each already within a warning's length. */
  readonly warnings: readonly string[];
  /** Commands that apply the remedy (kubectl create …), when there are any. */
  readonly commands: readonly string[];
  /** The objects the remedy adds (Roles, bindings, ServiceAccounts), for the YAML and --apply-to. */
  readonly objects: readonly KubeObject[];
}
