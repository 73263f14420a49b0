// The audit scenario (BENCH_SCENARIOS=audit): `admission-chain audit` offline over a GitOps-like
// tree (bench/audit-tree.ts) of 1,000 and 10,000 pods in 100 files, against examples/cluster-state.yaml,
// with the default plugins, as the image would run it (the bundle in dist/, the Dockerfile's node
// flags and environment), once with `-o json` and once with the default table, stdout to /dev/null.
// Each run is a child process of its own on the server core; its wall time is measured here, and
// its CPU time and peak RSS (VmHWM) by the child itself as it exits, so no peak at the very end is
// missed, as polling /proc from here could. A one-pod tree gives the start-up (loading the bundle
// and the cluster state), which every run pays once.
//
// Unlimited, V8 lets garbage pile up in the old generation long before a full collection, so the
// peak RSS says when V8 chose to collect more than what the audit holds. Each output is therefore
// run a second time with the old generation capped (--max-old-space-size): a run that finishes
// under the cap holds less than it at every moment, and its peak RSS is what the audit needs.
//
// Knobs: BENCH_AUDIT_PODS (default 1000,10000), BENCH_AUDIT_RUNS (runs of each size and variant,
// default 3: the median is shown), BENCH_AUDIT_OLD_SPACE_MIB (the cap, default 40).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AuditCounts, parseCountLine, type Tree, writeTree } from './audit-tree.ts';
import { imageRuntime, serverCore } from './processes.ts';

const root = join(import.meta.dirname, '..');
const clusterState = join(root, 'examples/cluster-state.yaml');

/** One way of running the audit: its output, and the old generation's cap if any. */
interface Variant {
  output: 'json' | 'table';
  oldSpaceMiB?: number;
}

const describeVariant = ({ output, oldSpaceMiB }: Variant) =>
  oldSpaceMiB === undefined ? output : `${output}, --max-old-space-size=${oldSpaceMiB}`;

/** What one audit run cost: wall and CPU seconds, and the child's peak RSS. */
export interface AuditRun {
  wallSeconds: number;
  cpuSeconds: number;
  peakRssMiB: number;
}

// Loaded into the audited process before the CLI: on exit it writes its CPU time (every thread) and
// its peak RSS where the bench will read it. The peak is VmHWM, its own memory's high-water mark:
// getrusage's maxrss would not do, since Linux carries it across exec from the process that forked
// it (this one, with the bundler loaded).
const usageReporter = `import { readFileSync, writeFileSync } from 'node:fs';
process.on('exit', () => {
  const usage = process.resourceUsage();
  const peakKiB = Number(/^VmHWM:\\s+(\\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
  writeFileSync(process.env.BENCH_AUDIT_USAGE_FILE, JSON.stringify({ peakKiB, cpuMicros: usage.userCPUTime + usage.systemCPUTime }));
});
`;

function wholeNumbers(name: string, fallback: string): number[] {
  const values = (process.env[name] ?? fallback).split(',').map(Number);
  if (values.length === 0 || values.some((v) => !Number.isInteger(v) || v < 1)) {
    process.stderr.write(
      `bench: ${name} must be whole numbers of at least 1 separated by commas, got ${JSON.stringify(process.env[name])}\n`,
    );
    process.exit(2);
  }
  return values;
}

export async function runAuditScenario(): Promise<void> {
  const sizes = wholeNumbers('BENCH_AUDIT_PODS', '1000,10000');
  const [runs] = wholeNumbers('BENCH_AUDIT_RUNS', '3') as [number];
  const [oldSpaceMiB] = wholeNumbers('BENCH_AUDIT_OLD_SPACE_MIB', '40') as [number];
  const variants: Variant[] = [{ output: 'json' }, { output: 'table' }, { output: 'json', oldSpaceMiB }, { output: 'table', oldSpaceMiB }];
  const dir = mkdtempSync(join(tmpdir(), 'admission-chain-bench-audit-'));
  const reporter = join(dir, 'usage-reporter.mjs');
  writeFileSync(reporter, usageReporter);
  try {
    const rows: Row[] = [];
    for (const pods of [1, ...sizes]) {
      const treeDir = join(dir, `tree-${pods}`);
      const tree = writeTree(treeDir, pods);
      for (const variant of variants) {
        const measured: AuditRun[] = [];
        for (let i = 0; i < runs; i++) measured.push(await auditOnce(treeDir, tree.expected, variant, reporter, join(dir, 'usage.json')));
        rows.push({ tree, variant, run: median(measured) });
      }
      rmSync(treeDir, { recursive: true, force: true });
    }
    printAuditTable(rows, variants, runs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const hasTaskset = spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;

/** One `audit` of the tree, its stdout to /dev/null; throws when it did not count what the tree holds. */
async function auditOnce(tree: string, expected: AuditCounts, variant: Variant, reporter: string, usageFile: string): Promise<AuditRun> {
  const { nodeFlags, env } = imageRuntime();
  const { output, oldSpaceMiB } = variant;
  const args = [
    ...nodeFlags,
    ...(oldSpaceMiB === undefined ? [] : [`--max-old-space-size=${oldSpaceMiB}`]),
    '--import',
    reporter,
    join(root, 'dist/cli/run.js'),
    'audit',
    tree,
    '--cluster-state',
    clusterState,
    ...(output === 'table' ? [] : ['-o', output]),
  ];
  const [file, argv] = hasTaskset ? ['taskset', ['-c', String(serverCore), process.execPath, ...args]] : [process.execPath, args];
  rmSync(usageFile, { force: true });
  const started = performance.now();
  const child = spawn(file, argv, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env, BENCH_AUDIT_USAGE_FILE: usageFile },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode) => resolve(exitCode));
  });
  const wallSeconds = (performance.now() - started) / 1000;
  const counted = parseCountLine(stderr);
  if (code !== 0 || counted === undefined || JSON.stringify(counted) !== JSON.stringify(expected) || !existsSync(usageFile)) {
    throw new Error(
      `bench audit: ${tree} (${describeVariant(variant)}) exited ${code}, counted ${JSON.stringify(counted)}, expected ${JSON.stringify(expected)}:\n${stderr}`,
    );
  }
  const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as { peakKiB: number; cpuMicros: number };
  if (!Number.isFinite(usage.peakKiB)) throw new Error(`bench audit: no VmHWM in the audit's /proc/self/status`);
  return { wallSeconds, cpuSeconds: usage.cpuMicros / 1e6, peakRssMiB: usage.peakKiB / 1024 };
}

/** Each figure's median over the runs, on its own. */
export function median(runs: readonly AuditRun[]): AuditRun {
  const middle = (values: number[]) => {
    const sorted = values.sort((a, b) => a - b);
    const half = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
  };
  return {
    wallSeconds: middle(runs.map((r) => r.wallSeconds)),
    cpuSeconds: middle(runs.map((r) => r.cpuSeconds)),
    peakRssMiB: middle(runs.map((r) => r.peakRssMiB)),
  };
}

interface Row {
  tree: Tree;
  variant: Variant;
  run: AuditRun;
}

function printAuditTable(rows: readonly Row[], variants: readonly Variant[], runs: number): void {
  const count = (n: number) => n.toLocaleString('en-US');
  const at = (pods: number, variant: Variant) => rows.find((r) => r.tree.pods === pods && r.variant === variant)!.run;
  const lines = [
    '### Scenario audit: `audit` of a GitOps tree offline (default plugins, examples/cluster-state.yaml)',
    '',
    `- each tree: the pods in ${rows.at(-1)?.tree.files ?? 0} files of multi-document YAML under ten directories, and one Deployment a file; two pods in five admitted unchanged, two changed by AlwaysPullImages, one denied by OwnerReferencesPermissionEnforcement; every Deployment changed`,
    `- \`${[
      ...Object.entries(imageRuntime().env).map(([k, v]) => `${k}=${v}`),
      'node',
      ...imageRuntime().nodeFlags,
      '[--max-old-space-size=N]',
    ].join(
      ' ',
    )} dist/cli/run.js audit TREE --cluster-state examples/cluster-state.yaml [-o json] > /dev/null\`, ${hasTaskset ? `on CPU ${serverCore}` : 'not pinned'}, no memory cgroup; median of ${runs} run${runs > 1 ? 's' : ''}; every run's count line checked against the tree`,
    '',
    '| pods | objects audited (+ created by their controllers) | output, heap | wall (s) | CPU (s) | CPU per pod past start-up (ms) | peak RSS (MiB) |',
    '|---:|---:|---|---:|---:|---:|---:|',
  ];
  for (const { tree, variant, run } of rows) {
    const perPod = tree.pods === 1 ? '—' : (((run.cpuSeconds - at(1, variant).cpuSeconds) * 1000) / tree.pods).toFixed(2);
    lines.push(
      `| ${count(tree.pods)} | ${count(tree.expected.objects)} (+ ${count(tree.expected.created)}) | ${describeVariant(variant)} | ${run.wallSeconds.toFixed(2)} | ${run.cpuSeconds.toFixed(2)} | ${perPod} | ${run.peakRssMiB.toFixed(0)} |`,
    );
  }
  const sizes = [...new Set(rows.map((r) => r.tree.pods))].filter((pods) => pods > 1);
  if (sizes.length >= 2) {
    const [small, large] = [sizes[0]!, sizes.at(-1)!];
    lines.push('');
    for (const variant of variants) {
      const [a, b, startup] = [at(small, variant), at(large, variant), at(1, variant)];
      lines.push(
        `${count(large)} / ${count(small)} pods, ${describeVariant(variant)}: wall ×${(b.wallSeconds / a.wallSeconds).toFixed(2)}, CPU ×${(b.cpuSeconds / a.cpuSeconds).toFixed(2)}, CPU past start-up ×${((b.cpuSeconds - startup.cpuSeconds) / (a.cpuSeconds - startup.cpuSeconds)).toFixed(2)}, peak RSS ×${(b.peakRssMiB / a.peakRssMiB).toFixed(2)} (${(b.peakRssMiB - a.peakRssMiB).toFixed(0)} MiB more).`,
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}
