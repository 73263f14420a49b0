// The peers scenario's tables: every configuration at every rate and at saturation, then our figures
// as ratios of each peer's (added p99 latency, CPU per admission, peak RSS).
import { addedRatioInterval } from '../interval.ts';
import type { LoadResult } from '../load.ts';
import type { Configuration, Engine, EngineName } from './engines.ts';

export type Workload = 'pods' | 'services';

export interface Measured {
  result: LoadResult;
  /** The webhook process's CPU time per write sent to it (ms); none for the floor. */
  cpuMsPerRequest: number | undefined;
  /** Fixed rates: each counted slice's latencies, for the added p99 ratio's interval. */
  slices?: readonly (readonly number[])[];
}

export interface WorkloadResults {
  workload: Workload;
  byRate: Array<{ rate: number; results: Partial<Record<Configuration, Measured>> }>;
  saturation: Partial<Record<Configuration, Measured>>;
}

export interface PeersReport {
  kubernetesVersion: string;
  engines: Engine[];
  configurations: Configuration[];
  results: WorkloadResults[];
  peakRssMiB: Partial<Record<EngineName, number>>;
  /** CPU time each webhook process spent per second with no admission request (ms). */
  idleCpuMsPerSecond: Partial<Record<EngineName, number>>;
  notes: string[];
  saturationSeconds: number;
  seconds: number;
  connections: number;
}

const titles: Record<Workload, string> = {
  pods: 'Pod CREATE (dry run), 3 containers: AlwaysPullImages',
  services: 'Service CREATE (dry run), no external IP: DenyServiceExternalIPs',
};

const fmt = (n: number | undefined, digits = 2) => (n === undefined || !Number.isFinite(n) ? '—' : n.toFixed(digits));
const ratio = (ours: number | undefined, theirs: number | undefined) =>
  ours === undefined || theirs === undefined || theirs <= 0 ? '—' : (ours / theirs).toFixed(2);

/**
 * The added p99 ratio's 95 % interval over the slices, in brackets: a machine stall in one slice is
 * more than 1 % of a configuration's writes, so one stretch of the machine can decide a p99.
 */
function addedInterval(results: Partial<Record<Configuration, Measured>>, peer: Configuration): string {
  const [floor, ours, theirs] = [results.floor?.slices, results['admission-chain']?.slices, results[peer]?.slices];
  if (floor === undefined || ours === undefined || theirs === undefined) return '';
  const { interval, defined } = addedRatioInterval(floor, ours, theirs, { quantile: 0.99 });
  if (interval === undefined) return '';
  const [low, high] = interval;
  return ` (${low.toFixed(2)}–${high.toFixed(2)}${defined < 0.95 ? `, ${Math.round(defined * 100)} % of draws` : ''})`;
}

export function printPeersTables(report: PeersReport): void {
  const lines: string[] = [];
  lines.push(
    `### Peers: the same job through kube-apiserver ${report.kubernetesVersion}`,
    '',
    ...report.engines.map(
      (e) => `- ${e.name} ${e.version}${e.memoryLimitMiB === undefined ? '' : ` (memory cgroup ${e.memoryLimitMiB} MiB)`}: ${e.settings}`,
    ),
    `- fixed rates: ${report.seconds} counted 1 s slices a configuration, taking turns; saturation: ${report.connections} callers back to back, ${report.saturationSeconds} s a configuration; added = the configuration's figure minus the floor's`,
    '',
  );
  for (const { workload, byRate, saturation } of report.results) {
    lines.push(
      `#### ${titles[workload]}`,
      '',
      '| rate (req/s) | configuration | p50 (ms) | p99 (ms) | added p50 (ms) | added p99 (ms) | webhook CPU per admission (ms) | errors |',
      '|---:|---|---:|---:|---:|---:|---:|---:|',
    );
    const rows = [...byRate.map(({ rate, results }) => ({ rate: String(rate), results })), { rate: 'saturation', results: saturation }];
    for (const { rate, results } of rows) {
      const floor = results.floor?.result;
      for (const c of report.configurations) {
        const m = results[c];
        if (m === undefined) continue;
        const throughput = rate === 'saturation' ? ` (${m.result.requestsPerSecond.toFixed(0)} req/s)` : '';
        lines.push(
          `| ${rate}${throughput} | ${c} | ${fmt(m.result.p50Ms)} | ${fmt(m.result.p99Ms)} | ${c === 'floor' || !floor ? '—' : fmt(m.result.p50Ms - floor.p50Ms)} | ${c === 'floor' || !floor ? '—' : fmt(m.result.p99Ms - floor.p99Ms)} | ${fmt(m.cpuMsPerRequest, 3)} | ${m.result.failures} |`,
        );
      }
    }
    lines.push('');
  }
  const peers = report.configurations.filter((c): c is Exclude<EngineName, 'admission-chain'> => c === 'gatekeeper' || c === 'kyverno');
  if (peers.length > 0 && report.configurations.includes('admission-chain')) {
    lines.push(
      '#### admission-chain as a ratio of each peer (lower is better)',
      '',
      `| workload | rate (req/s) | ${peers.map((p) => `added p99, ours / ${p} (95 % interval over the slices)`).join(' | ')} | ${peers.map((p) => `CPU per admission, ours / ${p}`).join(' | ')} |`,
      `|---|---:|${peers.map(() => '---:').join('|')}|${peers.map(() => '---:').join('|')}|`,
    );
    for (const { workload, byRate } of report.results) {
      for (const { rate, results } of byRate) {
        const floor = results.floor?.result.p99Ms ?? 0;
        const added = (c: Configuration) => (results[c] === undefined ? undefined : results[c].result.p99Ms - floor);
        const cpu = (c: Configuration) => results[c]?.cpuMsPerRequest;
        lines.push(
          `| ${workload} | ${rate} | ${peers.map((p) => `${ratio(added('admission-chain'), added(p))}${addedInterval(results, p)}`).join(' | ')} | ${peers.map((p) => ratio(cpu('admission-chain'), cpu(p))).join(' | ')} |`,
        );
      }
    }
    lines.push('');
  }
  lines.push(
    `| each webhook process | ${report.engines.map((e) => e.name).join(' | ')} |`,
    `|---|${report.engines.map(() => '---:').join('|')}|`,
    `| peak RSS over the whole run (VmHWM, MiB) | ${report.engines.map((e) => fmt(report.peakRssMiB[e.name], 0)).join(' | ')} |`,
    `| CPU with no admission request (ms per second, before the load) | ${report.engines.map((e) => fmt(report.idleCpuMsPerSecond[e.name], 1)).join(' | ')} |`,
    `| peak RSS, ours / this engine's | ${report.engines.map((e) => ratio(report.peakRssMiB['admission-chain'], report.peakRssMiB[e.name])).join(' | ')} |`,
    '',
  );
  for (const note of report.notes) lines.push(note, '');
  const failed = report.results.some((w) =>
    [...w.byRate.map((r) => r.results), w.saturation].some((results) => Object.values(results).some((m) => m.result.failures > 0)),
  );
  if (failed) lines.push('**Some requests failed: the figures above are not trustworthy.**', '');
  process.stdout.write(`${lines.join('\n')}\n`);
}
