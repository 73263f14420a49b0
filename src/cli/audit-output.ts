// Where `audit`'s results go as they are found. json and yaml are written one result at a time, so
// nothing but the counts is held for them; the table holds one row per namespace, owner, plugin
// and result, the policy reports one result per finding until each namespace's report is written.
import { stringify } from 'yaml';
import type { AuditResult, AuditSummary, FindingResult } from './audit-results.ts';
import type { DocumentError } from './review-results.ts';
import { alignColumns, oneLine, patchSummary } from './review-results.ts';

export interface AuditSink {
  result(result: AuditResult | DocumentError): void;
  end(summary: AuditSummary): void;
}

export interface Writer {
  write(text: string): unknown;
}

/** `{"results": [...], "summary": {...}}`, the results written as they come. */
export function jsonSink(out: Writer): AuditSink {
  let first = true;
  return {
    result(result) {
      const text = JSON.stringify(result, null, 2).replace(/\n/g, '\n    ');
      out.write(`${first ? '{\n  "results": [\n' : ',\n'}    ${text}`);
      first = false;
    },
    end(summary) {
      const summaryText = JSON.stringify(summary, null, 2).replace(/\n/g, '\n  ');
      out.write(`${first ? '{\n  "results": [' : '\n  '}],\n  "summary": ${summaryText}\n}\n`);
    },
  };
}

/** The same document as YAML: `results:` one item at a time, then `summary:`. */
export function yamlSink(out: Writer): AuditSink {
  let first = true;
  return {
    result(result) {
      out.write(`${first ? 'results:\n' : ''}${stringify([result])}`);
      first = false;
    },
    end(summary) {
      out.write(`${first ? 'results: []\n' : ''}${stringify({ summary })}`);
    },
  };
}

interface Row {
  namespace: string;
  owner: string;
  plugin: string;
  result: FindingResult;
  objects: number;
  detail: string;
}

/** One row per namespace, owner, plugin and result: how many audited objects, and the first message. */
export function tableSink(out: Writer): AuditSink {
  const rows = new Map<string, Row>();
  const errors: DocumentError[] = [];
  return {
    result(result) {
      if ('error' in result) {
        errors.push(result);
        return;
      }
      const seen = new Set<string>();
      for (const finding of result.findings) {
        const namespace = result.namespace ?? '';
        const key = JSON.stringify([namespace, result.owner, finding.plugin, finding.result]);
        const row = rows.get(key);
        const counted = seen.has(key);
        seen.add(key);
        if (row !== undefined) {
          if (!counted) row.objects++;
          continue;
        }
        const detail = finding.result === 'mutate' ? patchSummary(finding.patch ?? []) : oneLine(finding.message ?? '');
        rows.set(key, { namespace, owner: result.owner, plugin: finding.plugin, result: finding.result, objects: 1, detail });
      }
    },
    end() {
      const sorted = [...rows.values()].sort(
        (a, b) =>
          compare(a.namespace, b.namespace) || compare(a.owner, b.owner) || compare(a.plugin, b.plugin) || compare(a.result, b.result),
      );
      const lines =
        sorted.length === 0
          ? ['no audited object would be denied, warned about or changed']
          : alignColumns([
              ['NAMESPACE', 'OWNER', 'PLUGIN', 'RESULT', 'OBJECTS', 'DETAIL'],
              ...sorted.map((r) => [r.namespace || '(cluster)', r.owner, r.plugin, r.result, String(r.objects), r.detail]),
            ]);
      if (errors.length > 0) lines.push('', ...alignColumns([['SOURCE', 'ERROR'], ...errors.map((e) => [e.source, e.error])]));
      out.write(`${lines.join('\n')}\n`);
    },
  };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The count line `audit` ends with on stderr, whatever the output. */
export function countLine(summary: AuditSummary): string {
  const { objects, created, denied, warned, mutated, skipped, errors } = summary;
  const createdNote = created > 0 ? ` (and ${created} objects their controllers would create)` : '';
  const notes = [...(skipped > 0 ? [`${skipped} skipped`] : []), ...(errors > 0 ? [`${errors} not audited`] : [])];
  return `audited ${objects} objects${createdNote}: ${denied} denied, ${warned} with warnings, ${mutated} changed${notes.length > 0 ? `; ${notes.join(', ')}` : ''}`;
}
