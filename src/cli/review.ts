// `admission-chain review`: what `kubectl apply --dry-run=server` would say, offline. Reads an
// AdmissionReview (or builds one from a manifest and a user), runs the chain against a local
// cluster-state file, and prints the AdmissionReview with its response.
import { randomUUID } from 'node:crypto';
import { type Command, Option } from 'commander';
import type { AdmissionChain, Phase } from '../admission/chain.ts';
import type { Deadline } from '../admission/deadline.ts';
import { type HandledReview, handleAdmission } from '../admission/handler.ts';
import { isOperation } from '../admission/operation.ts';
import {
  type AdmissionApiVersion,
  type AdmissionRequest,
  type AdmissionResponse,
  BadReviewError,
  decodeReview,
  responseReview,
} from '../admission/review.ts';
import { type KubeObject, parseGroupVersion } from '../api/types.ts';
import { parseDuration } from '../config/duration.ts';
import { parseFeatureGates } from '../config/feature-gates.ts';
import { featureGatesHelp } from '../config/serve-config.ts';
import type { FeatureGateOverrides } from '../ports/feature-gates.ts';
import { silentLogger } from '../ports/logger.ts';
import type { RestMapper } from '../ports/rest-mapper.ts';
import { isPlainObject } from '../util/plain-object.ts';
import { type Admission, composeAdmission, StartupError, selectPlugins } from '../wiring/index.ts';
import { CliError, type CliIO, parseSingleDocument, readInput } from './io.ts';

export interface ReviewOptions {
  clusterState?: string;
  phase: string;
  plugins?: string[];
  enableAdmissionPlugins?: string[];
  disableAdmissionPlugins?: string[];
  pluginMode?: string[];
  admissionControlConfigFile?: string;
  featureGates?: string[];
  filename?: string;
  user?: string;
  groups?: string;
  uid?: string;
  operation?: string;
  old?: string;
  namespace?: string;
  subresource?: string;
  timeout: string;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function registerReviewCommand(program: Command, io: CliIO): void {
  withReviewOptions(
    program
      .command('review')
      .description('run the chain offline on an AdmissionReview (FILE or stdin) and print the AdmissionReview with its response'),
  ).action(async (file: string | undefined, options: ReviewOptions) => {
    const output = await review(file, options, io);
    io.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
  });
}

/** The input and chain options `review` takes, for every command that reviews a request offline. */
export function withReviewOptions(command: Command): Command {
  return command
    .argument('[file]', 'AdmissionReview as JSON or YAML; "-" or absent reads stdin')
    .requiredOption('--cluster-state <file>', 'the local cluster state (RBAC, service accounts, discovery, ...)')
    .addOption(new Option('--phase <phase>', 'which webhook to act as').choices(['mutating', 'validating', 'all']).default('all'))
    .option('--plugins <names>', 'the exact plugin set (comma-separated)', collect)
    .option('--enable-admission-plugins <names>', 'plugins to enable in addition to the defaults', collect)
    .option('--disable-admission-plugins <names>', 'default plugins to disable', collect)
    .option('--plugin-mode <name=mode>', 'enforce, warn or audit, per plugin (repeatable)', collect)
    .option('--admission-control-config-file <file>', "kube-apiserver's AdmissionConfiguration file: the plugins' configuration")
    .option('--feature-gates <name=bool>', featureGatesHelp, collect)
    .option('-f, --filename <file>', 'build the request from this manifest instead of reading an AdmissionReview')
    .option('--user <name>', 'with -f: the requesting user', 'admin')
    .option('--groups <groups>', "with -f: the requesting user's groups (comma-separated)")
    .option('--uid <uid>', "with -f: the requesting user's uid")
    .option('--operation <op>', 'with -f: CREATE, UPDATE, DELETE or CONNECT (default CREATE, UPDATE with --old)')
    .option('--old <file>', 'with -f: the existing object, for UPDATE')
    .option('--namespace <ns>', 'with -f: namespace when the manifest has none', 'default')
    .option('--subresource <name>', 'with -f: the subresource being written')
    .option('--timeout <duration>', 'deadline for the whole review', '30s');
}

async function review(file: string | undefined, options: ReviewOptions, io: CliIO) {
  const prepared = await prepareReview(file, options, io);
  const { response } = await runPhases(prepared);
  return { ...responseReview(prepared.apiVersion, response), request: prepared.request };
}

export interface PreparedReview {
  apiVersion: AdmissionApiVersion;
  request: AdmissionRequest;
  chain: AdmissionChain;
  phases: readonly Phase[];
  deadline: Deadline;
}

/** The chain, the request and the deadline, from `review`'s options: everything but running it. */
export async function prepareReview(file: string | undefined, options: ReviewOptions, io: CliIO): Promise<PreparedReview> {
  let selection: ReturnType<typeof selectPlugins>;
  let featureGates: FeatureGateOverrides;
  try {
    selection = selectPlugins({
      plugins: options.plugins,
      enable: options.enableAdmissionPlugins,
      disable: options.disableAdmissionPlugins,
      modes: options.pluginMode,
    });
    featureGates = parseFeatureGates(options.featureGates);
  } catch (error) {
    throw new CliError((error as Error).message, 2);
  }
  let admission: Admission;
  try {
    admission = await composeAdmission({
      backend: offlineBackend(options.clusterState!, featureGates),
      selection,
      admissionControlConfigFile: options.admissionControlConfigFile,
      logger: silentLogger,
      warn: (warning) => io.stderr.write(`admission-chain: warning: ${warning}\n`),
    });
  } catch (error) {
    throw error instanceof StartupError ? new CliError(error.message, error.usage ? 2 : 1) : error;
  }
  const { backend, chain } = admission;
  let timeoutMs: number;
  try {
    timeoutMs = parseDuration(options.timeout);
  } catch (error) {
    throw new CliError(`--timeout: ${(error as Error).message}`, 2);
  }
  const deadline: Deadline = { signal: AbortSignal.timeout(timeoutMs), expiresAt: performance.now() + timeoutMs };

  let apiVersion: AdmissionApiVersion = 'admission.k8s.io/v1';
  let request: AdmissionRequest;
  if (options.filename !== undefined) {
    if (file !== undefined) throw new CliError('give either an AdmissionReview FILE or -f MANIFEST, not both', 2);
    request = await requestFromManifest(options, io, backend.ports.restMapper, deadline.signal);
  } else {
    const { text, source } = await readInput(file, io);
    const parsed = parseSingleDocument(text, source);
    try {
      const decoded = decodeReview(parsed);
      apiVersion = decoded.apiVersion;
      request = decoded.request;
    } catch (error) {
      if (error instanceof BadReviewError) throw new CliError(`${source}: invalid AdmissionReview: ${error.message}`);
      throw error;
    }
  }
  const phases: readonly Phase[] =
    options.phase === 'all' ? ['admit', 'validate'] : options.phase === 'mutating' ? ['admit'] : ['validate'];
  return { apiVersion, request, chain, phases, deadline };
}

/** Runs the phases in order, as `kubectl apply --dry-run=server` would: the patch applied between them. */
export async function runPhases(prepared: PreparedReview): Promise<{ response: AdmissionResponse; handled: HandledReview[] }> {
  let response: AdmissionResponse | undefined;
  const handled: HandledReview[] = [];
  let current = prepared.request;
  for (const phase of prepared.phases) {
    const result = await handleAdmission(prepared.chain, phase, current, prepared.deadline);
    handled.push(result);
    response = merge(response, result.response);
    if (!result.response.allowed) break;
    if (phase === 'admit' && result.mutatedObject !== undefined) current = { ...current, object: result.mutatedObject };
  }
  return { response: response!, handled };
}

/** The local backend over the cluster-state file; the cluster settings are unused offline. */
function offlineBackend(clusterState: string, featureGates: FeatureGateOverrides) {
  return {
    clusterState,
    kubeconfig: undefined,
    sarAllowedTtlMs: 0,
    sarDeniedTtlMs: 0,
    discoveryRefreshIntervalMs: 0,
    requestTimeoutMs: 0,
    featureGates,
  };
}

/** Folds the validating answer into the mutating one: the patch stays, the decision is the last. */
function merge(previous: AdmissionResponse | undefined, next: AdmissionResponse): AdmissionResponse {
  if (previous === undefined) return next;
  const merged: AdmissionResponse = { ...previous, ...next };
  if (previous.patch !== undefined) {
    merged.patch = previous.patch;
    merged.patchType = previous.patchType!;
  }
  const warnings = [...(previous.warnings ?? []), ...(next.warnings ?? [])];
  if (warnings.length > 0) merged.warnings = warnings;
  const annotations = { ...previous.auditAnnotations, ...next.auditAnnotations };
  if (Object.keys(annotations).length > 0) merged.auditAnnotations = annotations;
  return merged;
}

async function requestFromManifest(
  options: ReviewOptions,
  io: CliIO,
  restMapper: RestMapper | undefined,
  signal: AbortSignal,
): Promise<AdmissionRequest> {
  const load = async (path: string): Promise<KubeObject> => {
    const { text, source } = await readInput(path, io);
    const value = parseSingleDocument(text, source);
    if (!isPlainObject(value) || typeof value.apiVersion !== 'string' || typeof value.kind !== 'string') {
      throw new CliError(`${source}: expected a Kubernetes object with apiVersion and kind`);
    }
    return value as KubeObject;
  };
  const object = await load(options.filename!);
  const oldObject = options.old !== undefined ? await load(options.old) : undefined;
  const operation = options.operation ?? (oldObject ? 'UPDATE' : 'CREATE');
  if (!isOperation(operation))
    throw new CliError(`--operation ${JSON.stringify(operation)}: expected CREATE, UPDATE, DELETE or CONNECT`, 2);
  if (!restMapper) throw new CliError('this backend has no REST mapper to resolve the manifest kind');
  const { group, version } = parseGroupVersion(object.apiVersion!);
  let mappings: Awaited<ReturnType<typeof restMapper.mappingsFor>>;
  try {
    mappings = await restMapper.mappingsFor({ group, kind: object.kind! }, [version], signal);
  } catch (error) {
    throw new CliError(`${options.filename}: cannot resolve ${object.apiVersion} ${object.kind}: ${(error as Error).message}`);
  }
  const mapping = mappings[0]!;
  const namespaced = mapping.scope === 'namespace';
  const groups =
    options.groups === undefined
      ? []
      : options.groups
          .split(',')
          .map((g) => g.trim())
          .filter(Boolean);
  const request: AdmissionRequest = {
    uid: randomUUID(),
    kind: { group, version, kind: object.kind! },
    resource: mapping.resource,
    requestKind: { group, version, kind: object.kind! },
    requestResource: mapping.resource,
    name: object.metadata?.name ?? '',
    operation,
    userInfo: { username: options.user!, groups, ...(options.uid ? { uid: options.uid } : {}) },
    object,
    oldObject: oldObject ?? null,
    dryRun: true,
  };
  if (namespaced) request.namespace = object.metadata?.namespace ?? options.namespace!;
  if (options.subresource) request.subResource = options.subresource;
  return request;
}
