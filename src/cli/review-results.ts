// A review's results as `review -o json|yaml|table` prints them: one entry per object reviewed,
// with what its controllers would create nested under it, and a summary that decides the exit code.
import { stringify } from 'yaml';
import type { AdmissionResponse } from '../admission/review.ts';

export interface ObjectResult {
  source: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** Who asks: the -f --user, the AdmissionReview's user, or the controller that creates it. */
  user: string;
  /** False when the object, or anything its controllers would create, is denied. */
  allowed: boolean;
  deniedBy?: string;
  /** Set when the denial is not the object's own but that of something created from it. */
  deniedIn?: string;
  code?: number;
  message?: string;
  /** The JSONPatch the mutating phase answers for this object. */
  patch?: unknown[];
  warnings?: string[];
  /** What its controllers would create from it (a Deployment's ReplicaSet, that ReplicaSet's pod). */
  creates?: ObjectResult[];
}

export interface DocumentError {
  source: string;
  error: string;
}

/** Counts of the objects reviewed from the input; a workload counts once, with what it creates. */
export interface ReviewSummary {
  objects: number;
  allowed: number;
  /** Denied, or something their controllers would create is. */
  denied: number;
  /** Changed by the mutating phase, themselves or in what they create. */
  mutated: number;
  /** With warnings, themselves or in what they create. */
  warned: number;
  /** Objects their controllers would create, reviewed as those controllers. */
  created: number;
  /** Documents that could not be reviewed. */
  errors: number;
}

export interface ReviewResults {
  summary: ReviewSummary;
  results: Array<ObjectResult | DocumentError>;
}

export type FailOn = 'deny' | 'warn' | 'never';

export function isDocumentError(result: ObjectResult | DocumentError): result is DocumentError {
  return 'error' in result;
}

/** A result from the object's own response, before what it creates is added. */
export function objectResult(
  identity: Omit<ObjectResult, 'allowed'>,
  response: AdmissionResponse,
  rejectedBy: string | undefined,
): ObjectResult {
  const result: ObjectResult = { ...identity, allowed: response.allowed };
  if (!response.allowed) {
    if (rejectedBy !== undefined) result.deniedBy = rejectedBy;
    result.code = response.status?.code ?? 403;
    result.message = response.status?.message ?? '';
  }
  if (response.patch !== undefined) result.patch = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as unknown[];
  if (response.warnings !== undefined && response.warnings.length > 0) result.warnings = [...response.warnings];
  return result;
}

/** Adds what the object's controllers would create; the first denial among them becomes the object's. */
export function withCreated(result: ObjectResult, created: ObjectResult[]): ObjectResult {
  if (created.length === 0) return result;
  const withChildren: ObjectResult = { ...result, creates: created };
  const denial = created.find((c) => !c.allowed);
  if (result.allowed && denial !== undefined) {
    withChildren.allowed = false;
    if (denial.deniedBy !== undefined) withChildren.deniedBy = denial.deniedBy;
    withChildren.deniedIn = denial.deniedIn ?? objectName(denial);
    withChildren.code = denial.code!;
    withChildren.message = denial.message!;
  }
  return withChildren;
}

export function summarize(results: ReviewResults['results']): ReviewResults {
  const summary: ReviewSummary = { objects: 0, allowed: 0, denied: 0, mutated: 0, warned: 0, created: 0, errors: 0 };
  for (const r of results) {
    if (isDocumentError(r)) {
      summary.errors++;
      continue;
    }
    const tree = [r, ...createdBy(r)];
    summary.objects++;
    summary.created += tree.length - 1;
    if (r.allowed) summary.allowed++;
    else summary.denied++;
    if (tree.some((o) => o.patch !== undefined)) summary.mutated++;
    if (tree.some((o) => o.warnings !== undefined)) summary.warned++;
  }
  return { summary, results };
}

function createdBy(result: ObjectResult): ObjectResult[] {
  return (result.creates ?? []).flatMap((c) => [c, ...createdBy(c)]);
}

/** 1 when the run trips --fail-on, or a document could not be reviewed; 0 otherwise. */
export function exitCode({ summary }: { summary: Pick<ReviewSummary, 'errors' | 'denied' | 'warned'> }, failOn: FailOn): number {
  if (summary.errors > 0) return 1;
  if (failOn === 'never') return 0;
  if (summary.denied > 0) return 1;
  return failOn === 'warn' && summary.warned > 0 ? 1 : 0;
}

export function formatResults(results: ReviewResults, format: 'json' | 'yaml' | 'table'): string {
  if (format === 'json') return `${JSON.stringify(results, null, 2)}\n`;
  if (format === 'yaml') return stringify(results);
  return table(results);
}

export function objectName(r: ObjectResult): string {
  return `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name || '(generated)'}`;
}

function table({ summary, results }: ReviewResults): string {
  const rows: string[][] = [['SOURCE', 'OBJECT', 'RESULT', 'PLUGIN', 'DETAIL']];
  const add = (r: ObjectResult, depth: number) => {
    const object = `${'  '.repeat(depth)}${objectName(r)}`;
    rows.push([depth === 0 ? r.source : '', object, outcome(r), r.deniedBy ?? '', detail(r)]);
    for (const c of r.creates ?? []) add(c, depth + 1);
  };
  for (const r of results) {
    if (isDocumentError(r)) rows.push([r.source, '', 'error', '', r.error]);
    else add(r, 0);
  }
  const lines = alignColumns(rows);
  const { objects, allowed, denied, mutated, warned, created, errors } = summary;
  const createdNote = created > 0 ? ` (and ${created} objects their controllers would create)` : '';
  const errorsNote = errors > 0 ? `; ${errors} documents not reviewed` : '';
  lines.push(
    '',
    `${objects} objects${createdNote}: ${allowed} allowed, ${denied} denied, ${mutated} mutated, ${warned} with warnings${errorsNote}`,
  );
  return `${lines.join('\n')}\n`;
}

function outcome(r: ObjectResult): string {
  if (!r.allowed) return 'denied';
  if (r.warnings !== undefined) return 'warned';
  return r.patch !== undefined ? 'mutated' : 'allowed';
}

// The message of a denial, else the warnings, else the paths the patch changes.
function detail(r: ObjectResult): string {
  if (r.deniedIn !== undefined) return `its ${r.deniedIn} is denied`;
  if (!r.allowed) return oneLine(r.message ?? '');
  if (r.warnings !== undefined) return oneLine(r.warnings.join('; '));
  return r.patch === undefined ? '' : patchSummary(r.patch);
}

/** The first few operations of a patch, as "replace /spec/containers/0/imagePullPolicy". */
export function patchSummary(patch: readonly unknown[]): string {
  const paths = patch.map((op) => {
    const { op: verb, path } = op as { op: string; path: string };
    return `${verb} ${path}`;
  });
  return paths.length <= 3 ? paths.join(', ') : `${paths.slice(0, 3).join(', ')} (+${paths.length - 3} more)`;
}

export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}

/** Rows as lines with each column padded to its widest cell (the last is left as it is). */
export function alignColumns(rows: readonly string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}
