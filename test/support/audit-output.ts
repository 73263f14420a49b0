// The JSON `audit -o json` writes, as the tests read it (docs/command-line.md describes each field).
export interface AuditFinding {
  plugin: string;
  result: 'deny' | 'warn' | 'mutate';
  mode?: string;
  object?: string;
  user?: string;
  code?: number;
  message?: string;
  explanation?: string[];
  patch?: Array<{ op: string; path: string; value?: unknown }>;
}

export interface AuditResult {
  source: string;
  kind: string;
  namespace?: string;
  name: string;
  owner: string;
  user: string;
  findings: AuditFinding[];
}

export interface AuditOutput {
  results: Array<AuditResult | { source: string; error: string }>;
  summary: Record<string, number>;
}
