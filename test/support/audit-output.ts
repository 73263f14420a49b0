// The JSON `audit -o json` writes, as the tests read it (docs/command-line.md describes each field):
// the command's own result and summary types, and a document that could not be audited.
import type { AuditResult, AuditSummary } from '../../src/cli/audit-results.ts';

export type { AuditResult } from '../../src/cli/audit-results.ts';

export interface AuditOutput {
  results: Array<AuditResult | { source: string; error: string }>;
  summary: AuditSummary;
}
