// `npm run oracle -- [--plugins P,…] [--cases N] [--seed S] [--no-upstream]`: upstream as the oracle.
// Starts two real control planes — kube-apiserver with the plugins in-tree, and kube-apiserver with
// our webhook installed from the chart instead — gives both the same world, sends both the same
// dry-run requests (the replayable upstream table rows, then N seeded cases) and prints, per plugin,
// cases run and agreements, and each disagreement with its request and a minimal diff. The upstream
// rows that configure the plugin themselves (PodNodeSelector, PodTolerationRestriction) and the docs'
// examples run after, on server pairs configured for them. Exits 1 on any
// disagreement test/oracle/divergences.ts does not document, 2 on bad flags.
import { parseArgs } from 'node:util';
import { findBinaries } from '../control-plane/binaries.ts';
import { configuredRowGroups } from '../test/oracle/configured-rows.ts';
import { docsExampleGroups } from '../test/oracle/docs-examples.ts';
import { generateCases } from '../test/oracle/generate.ts';
import { type CaseResult, formatReport, reportOf, runCaseResults } from '../test/oracle/run.ts';
import { type OraclePlugin, oraclePlugins, startOracleServers } from '../test/oracle/servers.ts';
import { upstreamCases } from '../test/oracle/upstream-rows.ts';

const log = (line: string) => process.stderr.write(`oracle: ${line}\n`);

function options(): { plugins: OraclePlugin[]; cases: number; seed: number; upstream: boolean } {
  const { values } = parseArgs({
    options: {
      plugins: { type: 'string' },
      cases: { type: 'string', default: '500' },
      seed: { type: 'string', default: '1' },
      'no-upstream': { type: 'boolean', default: false },
    },
  });
  const plugins =
    values.plugins === undefined
      ? [...oraclePlugins]
      : values.plugins
          .split(',')
          .map((p) => p.trim())
          .filter((p) => p !== '');
  const unknown = plugins.filter((p) => !(oraclePlugins as readonly string[]).includes(p));
  if (unknown.length > 0 || plugins.length === 0)
    throw new Error(`--plugins: ${unknown.join(', ') || '(none)'} not among the oracle's plugins (${oraclePlugins.join(', ')})`);
  const cases = Number(values.cases);
  const seed = Number(values.seed);
  if (!Number.isInteger(cases) || cases < 0) throw new Error(`--cases: ${values.cases} is not a count`);
  if (!Number.isInteger(seed)) throw new Error(`--seed: ${values.seed} is not an integer`);
  return { plugins: plugins as OraclePlugin[], cases, seed, upstream: !values['no-upstream'] };
}

let parsed: ReturnType<typeof options>;
try {
  parsed = options();
} catch (error) {
  log((error as Error).message);
  process.exit(2);
}
const binaries = findBinaries();
if ('missing' in binaries) {
  log(`kube-apiserver, kubectl and etcd are ${binaries.missing}: npm run control-plane:build builds them`);
  process.exit(1);
}
log(`starting two control planes (in-tree and webhook) for ${parsed.plugins.join(', ')}`);
const servers = await startOracleServers(parsed.plugins);
let exitCode = 1;
const results: CaseResult[] = [];
let sent = 0;
const started = Date.now();
try {
  const cases = [...(parsed.upstream ? upstreamCases(parsed.plugins) : []), ...generateCases(parsed.plugins, parsed.cases, parsed.seed)];
  log(`sending ${cases.length} cases to both (seed ${parsed.seed})`);
  results.push(...(await runCaseResults(servers, cases)));
  sent += cases.length;
} finally {
  await servers.close();
}
for (const group of parsed.upstream ? [...configuredRowGroups(parsed.plugins), ...docsExampleGroups(parsed.plugins)] : []) {
  log(`starting two control planes configured for ${group.name} (${group.cases.length} rows of ${group.plugins.join(', ')})`);
  const rowServers = await startOracleServers(group.plugins, group.world);
  try {
    results.push(...(await runCaseResults(rowServers, group.cases)));
    sent += group.cases.length;
  } finally {
    await rowServers.close();
  }
}
const report = reportOf(results);
process.stdout.write(`${formatReport(report)}\n`);
log(`${sent} cases in ${((Date.now() - started) / 1000).toFixed(1)} s; ${report.findings.length} undocumented disagreement(s)`);
exitCode = report.findings.length === 0 ? 0 : 1;
process.exit(exitCode);
