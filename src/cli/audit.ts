// `admission-chain audit`: what the enabled plugins would do today to what is already there, before
// they are enforced. Reads the objects of a GitOps tree (against a cluster-state file) or of the live
// cluster (page by page), runs each through the chain as the CREATE that would make it — a workload
// with what its controllers would create, as those controllers — and reports what would be denied,
// warned about or changed, by which plugin, as each object is done: nothing is held but the counts
// and what the chosen output must group.
import { type Command, CommanderError, Option } from 'commander';
import type { KubeObject } from '../api/types.ts';
import { parseDuration } from '../config/duration.ts';
import type { BackendConfig } from '../wiring/backend.ts';
import { openClusterObjects } from '../wiring/cluster-objects.ts';
import { reportApplier } from './audit-apply.ts';
import { type AuditSink, countLine, jsonSink, tableSink, yamlSink } from './audit-output.ts';
import { policyReportSink, type ReportApi, reportApis } from './audit-reports.ts';
import {
  type AuditResult,
  type AuditSummary,
  auditResult,
  count,
  emptySummary,
  type MutatingStep,
  mutatingSteps,
} from './audit-results.ts';
import { asCreated, clusterResources, isAudited, listedResourcesMapper } from './audit-scope.ts';
import { streamDocuments } from './inputs.ts';
import { CliError, type CliIO } from './io.ts';
import { progressBar } from './progress.ts';
import {
  type ChainFlags,
  type DocumentReview,
  type ManifestFlags,
  manifestContext,
  prepareChain,
  type ReviewedObject,
  reviewDocument,
  withChainOptions,
  withManifestOptions,
} from './review.ts';
import { asKubeObject } from './review-requests.ts';
import { type DocumentError, exitCode } from './review-results.ts';

interface AuditOptions extends ChainFlags, ManifestFlags {
  clusterState?: string;
  kubeconfig?: string;
  chunkSize: string;
  requestTimeout: string;
  output: 'table' | 'json' | 'yaml' | 'policyreport';
  reportApi: ReportApi;
  applyReports?: boolean;
}

/** One object to audit, or why one could not be read. */
type Found = { source: string; value: unknown; error?: undefined } | { source: string; error: string };

/** Where the reading is, for the progress bar: the file or resource being read, of how many. */
type Position = (index: number, total: number) => void;

export function registerAuditCommand(program: Command, io: CliIO): void {
  const command = program
    .command('audit')
    .description(
      'what the enabled plugins would deny, warn about or change in what exists: a GitOps tree (--cluster-state) or the live cluster',
    )
    .argument('[paths...]', 'manifests to audit, JSON or YAML, many documents and Lists; directories recursively; "-" reads stdin')
    .option('--cluster-state <file>', 'audit the manifests offline against this cluster state (RBAC, service accounts, discovery, ...)')
    .option('--kubeconfig <file>', 'the cluster to audit (default: KUBECONFIG, then ~/.kube/config, then in-cluster)');
  withChainOptions(withManifestOptions(command, 'manifests to audit, like PATHS (repeatable)'))
    .option('--chunk-size <n>', 'objects per LIST page when reading the cluster', '500')
    .option('--request-timeout <duration>', 'bound on each call to the API server', '30s')
    .addOption(
      new Option(
        '-o, --output <format>',
        'table: findings by namespace, owner and plugin; json or yaml: each object with findings; policyreport: one report per namespace, as YAML',
      )
        .choices(['table', 'json', 'yaml', 'policyreport'])
        .default('table'),
    )
    .addOption(
      new Option('--report-api <group/version>', "the report objects -o policyreport writes: OpenReports' or the older wgpolicyk8s.io")
        .choices(reportApis)
        .default(reportApis[0]),
    )
    .option(
      '--apply-reports',
      'with -o policyreport: apply the reports to the audited cluster (server-side) instead of printing them, and delete ours with nothing left in them',
    )
    .action(async (paths: string[], options: AuditOptions) => {
      const code = await audit(paths, options, io);
      if (code !== 0) throw new CommanderError(code, 'admission-chain.audit.fail-on', `--fail-on ${options.failOn}`);
    });
}

async function audit(args: string[], options: AuditOptions, io: CliIO): Promise<number> {
  const paths = [...args, ...(options.filename ?? [])];
  const offline = options.clusterState !== undefined;
  if (offline && options.kubeconfig !== undefined) throw new CliError('--cluster-state and --kubeconfig: give one backend, not both', 2);
  if (offline && paths.length === 0) throw new CliError('--cluster-state audits manifests: give PATHS or -f PATH', 2);
  if (options.applyReports === true && options.output !== 'policyreport')
    throw new CliError('--apply-reports applies reports: give -o policyreport', 2);
  if (options.applyReports === true && offline)
    throw new CliError('--apply-reports writes to the audited cluster: not with --cluster-state', 2);
  // Each run's reports replace the last run's, so they must be of the whole cluster, not of some manifests.
  if (options.applyReports === true && paths.length > 0)
    throw new CliError("--apply-reports writes the cluster's own reports: audit the cluster, not PATHS", 2);
  const pageSize = positiveInteger('--chunk-size', options.chunkSize);
  const requestTimeoutMs = duration('--request-timeout', options.requestTimeout);
  const { admission, phases, timeoutMs } = await prepareChain(
    options,
    (featureGates) => backendConfig(options, featureGates, requestTimeoutMs),
    io,
  );
  const { backend, chain } = admission;
  try {
    if (!offline) await syncedWithin(backend, requestTimeoutMs);
    const review: DocumentReview = {
      chain,
      phases,
      timeoutMs,
      context: manifestContext(options, backend.ports.restMapper ?? listedResourcesMapper(clusterResources)),
    };
    const now = new Date();
    const applier = options.applyReports === true ? reportApplier(options.reportApi, options.kubeconfig, requestTimeoutMs, io) : undefined;
    const sink =
      options.output === 'policyreport' ? policyReportSink(applier?.out ?? io.stdout, options.reportApi, now) : sinkFor(options.output, io);
    const summary = emptySummary();
    const progress = progressBar(io.stderr);
    let at = { index: 0, total: 0 };
    const position: Position = (index, total) => {
      at = { index, total };
    };
    const unit = paths.length > 0 ? 'files' : 'resources';
    const found = paths.length > 0 ? fromFiles(paths, io, position) : fromCluster(options, pageSize, requestTimeoutMs, position);
    const steps = mutatingSteps(chain);
    for await (const item of found) {
      progress.update(at.index, at.total, unit, summary.objects);
      const audited = await auditFound(item, review, steps, now);
      if (audited === 'skipped') {
        summary.skipped++;
      } else if ('error' in audited) {
        progress.end();
        notAudited(summary, sink, audited, io);
      } else {
        count(summary, audited.reviewed, audited.result);
        if (audited.result.findings.length > 0) sink.result(audited.result);
      }
    }
    progress.end();
    sink.end(summary);
    await applier?.apply();
    io.stderr.write(`admission-chain: ${countLine(summary)}\n`);
    return exitCode({ summary }, options.failOn);
  } finally {
    await backend.close();
  }
}

/** One object found: skipped, not auditable (its error), or its review and what the audit says of it. */
async function auditFound(
  item: Found,
  review: DocumentReview,
  steps: readonly MutatingStep[],
  now: Date,
): Promise<'skipped' | DocumentError | { reviewed: ReviewedObject; result: AuditResult }> {
  if (item.error !== undefined) return item;
  let object: KubeObject;
  try {
    object = asKubeObject(item.value);
  } catch (error) {
    return { source: item.source, error: (error as Error).message };
  }
  if (!isAudited(object)) return 'skipped';
  const reviewed = await reviewDocument(review, item.source, asCreated(object), now);
  if ('error' in reviewed) return reviewed;
  return { reviewed, result: await auditResult(reviewed, steps, review.timeoutMs) };
}

function notAudited(summary: AuditSummary, sink: AuditSink, item: DocumentError, io: CliIO): void {
  summary.errors++;
  io.stderr.write(`admission-chain: ${item.source}: ${item.error}\n`);
  sink.result({ source: item.source, error: item.error });
}

function sinkFor(output: 'table' | 'json' | 'yaml', io: CliIO): AuditSink {
  if (output === 'json') return jsonSink(io.stdout);
  if (output === 'yaml') return yamlSink(io.stdout);
  return tableSink(io.stdout);
}

function backendConfig(options: AuditOptions, featureGates: Record<string, boolean>, requestTimeoutMs: number): BackendConfig {
  if (options.clusterState !== undefined) return { kind: 'local', clusterState: options.clusterState, featureGates };
  return {
    kind: 'cluster',
    kubeconfig: options.kubeconfig,
    // One audit asks the same questions of many objects (a controller's, a namespace's): as serve caches them.
    sarAllowedTtlMs: 10_000,
    sarDeniedTtlMs: 10_000,
    discoveryRefreshIntervalMs: 30_000,
    requestTimeoutMs,
    featureGates,
  };
}

/** The cluster backend's caches (namespaces, service accounts, ...) listed before the first object is audited. */
async function syncedWithin(backend: { ready(): Promise<void>; notReadyReasons(): string[] }, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  try {
    if ((await Promise.race([backend.ready().then(() => 'ready' as const), late])) === 'late') {
      throw new CliError(`the cluster's caches did not sync within ${timeoutMs / 1000}s: ${backend.notReadyReasons().join('; ')}`);
    }
  } catch (error) {
    throw error instanceof CliError ? error : new CliError(`cannot read the cluster: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}

async function* fromFiles(paths: readonly string[], io: CliIO, position: Position): AsyncGenerator<Found> {
  for await (const document of streamDocuments(paths, io, position)) {
    yield document.error === undefined
      ? { source: document.source, value: document.value }
      : { source: document.source, error: document.error };
  }
}

/** The cluster's objects of every audited resource, a page at a time; a resource that cannot be listed is an error and the rest go on. */
async function* fromCluster(options: AuditOptions, pageSize: number, timeoutMs: number, position: Position): AsyncGenerator<Found> {
  let lister: Awaited<ReturnType<typeof openClusterObjects>>;
  try {
    lister = await openClusterObjects({ kubeconfig: options.kubeconfig, pageSize, timeoutMs });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  try {
    for (const [index, resource] of clusterResources.entries()) {
      position(index, clusterResources.length);
      try {
        for await (const object of lister.list(resource)) yield { source: 'cluster', value: object };
      } catch (error) {
        yield { source: 'cluster', error: (error as Error).message };
      }
    }
  } finally {
    await lister.close();
  }
}

function positiveInteger(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${flag} ${JSON.stringify(value)}: expected a whole number of at least 1`, 2);
  return n;
}

function duration(flag: string, value: string): number {
  try {
    return parseDuration(value);
  } catch (error) {
    throw new CliError(`${flag}: ${(error as Error).message}`, 2);
  }
}
