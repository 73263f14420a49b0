// Runs oracle cases against both servers and tallies them per plugin: each case is sent to the
// in-tree server and to the webhook server at once, the two outcomes compared, and every
// disagreement either recognised as a documented divergence or kept as a finding.
import { compareOutcomes, type Difference, type Outcome, outcomeOf } from './compare.ts';
import { divergences } from './divergences.ts';
import type { OracleCase } from './generate.ts';
import type { OracleServers } from './servers.ts';

export interface CaseResult {
  oracleCase: OracleCase;
  inTree: Outcome;
  webhook: Outcome;
  differences: Difference[];
  /** The documented divergence that explains the differences. */
  divergence?: string;
  /** A replayed upstream row whose in-tree answer is not what upstream's table expects (the port is wrong). */
  upstreamMismatch?: boolean;
  /** How the in-tree object misses what the row expects of it, when admitted as expected. */
  upstreamDetail?: string;
}

export interface PluginTally {
  run: number;
  /** Cases the in-tree server admitted (the rest it denied: a plugin, RBAC or the API's validation). */
  admitted: number;
  agreements: number;
  documented: number;
  undocumented: number;
}

export interface OracleReport {
  results: CaseResult[];
  tallies: Map<string, PluginTally>;
  /** Disagreements no divergence explains, and upstream rows the in-tree server does not answer as their table says. */
  findings: CaseResult[];
}

export async function runCases(servers: OracleServers, cases: readonly OracleCase[], concurrency = 4): Promise<OracleReport> {
  return reportOf(await runCaseResults(servers, cases, concurrency));
}

/** Each case's result, in the order of the cases. */
export async function runCaseResults(servers: OracleServers, cases: readonly OracleCase[], concurrency = 4): Promise<CaseResult[]> {
  const results: CaseResult[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const index = next++;
      results[index] = await runCase(servers, cases[index] as OracleCase);
      // The front's call log is for tests that inspect a few calls; a long run would only grow it.
      servers.cluster.webhookCalls.splice(0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

/** The figures per plugin and the findings of results from one or more server pairs. */
export function reportOf(results: CaseResult[]): OracleReport {
  const tallies = new Map<string, PluginTally>();
  for (const result of results) {
    const tally = tallies.get(result.oracleCase.plugin) ?? { run: 0, admitted: 0, agreements: 0, documented: 0, undocumented: 0 };
    tally.run++;
    if (result.inTree.admitted) tally.admitted++;
    if (result.differences.length === 0) tally.agreements++;
    else if (result.divergence !== undefined) tally.documented++;
    else tally.undocumented++;
    tallies.set(result.oracleCase.plugin, tally);
  }
  const findings = results.filter((r) => (r.differences.length > 0 && r.divergence === undefined) || r.upstreamMismatch === true);
  return { results, tallies, findings };
}

async function runCase(servers: OracleServers, oracleCase: OracleCase): Promise<CaseResult> {
  const [inTreeAnswer, webhookAnswer] = await Promise.all([
    servers.inTree.send(oracleCase.request),
    servers.webhook.send(oracleCase.request),
  ]);
  const generateName = (oracleCase.request.object as { metadata?: { generateName?: string } } | undefined)?.metadata?.generateName;
  const inTree = outcomeOf(inTreeAnswer, generateName);
  const webhook = outcomeOf(webhookAnswer, generateName);
  const differences = compareOutcomes(inTree, webhook);
  const result: CaseResult = { oracleCase, inTree, webhook, differences };
  if (differences.length > 0) {
    const divergence = divergences.find((d) => d.matches(oracleCase, inTree, webhook));
    if (divergence !== undefined) result.divergence = divergence.id;
  }
  if (oracleCase.upstreamExpects !== undefined && (oracleCase.upstreamExpects === 'admitted') !== inTree.admitted)
    result.upstreamMismatch = true;
  else if (!inTree.admitted && oracleCase.upstreamDenial !== undefined && !inTree.message.includes(oracleCase.upstreamDenial))
    Object.assign(result, {
      upstreamMismatch: true,
      upstreamDetail: `a denial saying "${oracleCase.upstreamDenial}", the in-tree server said "${inTree.message}"`,
    });
  else if (inTree.admitted && oracleCase.upstreamResult !== undefined) {
    const detail = oracleCase.upstreamResult(inTree.object);
    if (detail !== undefined) Object.assign(result, { upstreamMismatch: true, upstreamDetail: detail });
  }
  return result;
}

/** The in-tree server's denials grouped by code, reason and message with names and numbers taken out, most frequent first. */
function denialCauses(results: readonly CaseResult[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const { inTree } of results) {
    if (inTree.admitted) continue;
    const message = inTree.message
      .replace(/"[^"]*"/g, '"…"')
      .replace(/\b\d+(\.\d+)*\b/g, 'N')
      .slice(0, 140);
    const key = `${inTree.code} ${inTree.reason || '(no reason)'}: ${message}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]);
}

/** How many disagreements each documented divergence explained, most first. */
export function divergenceCounts(results: readonly CaseResult[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const { divergence } of results) if (divergence !== undefined) counts.set(divergence, (counts.get(divergence) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** The report as the command prints it: per plugin the figures, the count of each documented divergence, then each finding with its request and diff. */
export function formatReport(report: OracleReport): string {
  const lines: string[] = [];
  const width = Math.max(...[...report.tallies.keys()].map((k) => k.length), 6);
  lines.push(`${'plugin'.padEnd(width)}  cases  admitted  agree  documented  undocumented`);
  for (const [plugin, t] of [...report.tallies].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(
      `${plugin.padEnd(width)}  ${String(t.run).padStart(5)}  ${String(t.admitted).padStart(8)}  ${String(t.agreements).padStart(5)}  ${String(t.documented).padStart(10)}  ${String(t.undocumented).padStart(12)}`,
    );
  }
  const byDivergence = divergenceCounts(report.results);
  if (byDivergence.length > 0) {
    lines.push('', 'documented divergences, by entry:');
    for (const [id, count] of byDivergence) lines.push(`  ${String(count).padStart(5)}  ${id}`);
  }
  lines.push('', 'in-tree denials, by what denied them:');
  for (const [what, count] of denialCauses(report.results)) lines.push(`  ${String(count).padStart(5)}  ${what}`);
  for (const finding of report.findings) {
    lines.push(
      '',
      `✗ ${finding.oracleCase.id} (${finding.oracleCase.plugin})${finding.upstreamDetail !== undefined ? `: upstream's table expects ${finding.upstreamDetail}` : finding.upstreamMismatch ? `: upstream's table expects ${finding.oracleCase.upstreamExpects}, the in-tree server ${finding.inTree.admitted ? 'admitted' : 'denied'}` : ''}`,
    );
    lines.push(`  request: ${JSON.stringify(finding.oracleCase.request)}`);
    if (finding.upstreamMismatch && !finding.inTree.admitted)
      lines.push(`  in-tree: ${finding.inTree.code} ${finding.inTree.reason}: ${finding.inTree.message}`);
    for (const d of finding.differences)
      lines.push(`  ${d.path}:`, `    in-tree: ${JSON.stringify(d.inTree)}`, `    webhook: ${JSON.stringify(d.webhook)}`);
  }
  return lines.join('\n');
}
