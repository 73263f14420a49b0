// `admission-chain review`: what `kubectl apply --dry-run=server` would say, offline. Reads
// AdmissionReviews and manifests (files, directories, stdin; many documents each), runs the chain
// against a local cluster-state file, and for each workload also the pods its controllers would
// create, as those controllers. One AdmissionReview in prints the AdmissionReview with its
// response, as kube-apiserver would answer it; anything more prints the results per object.
import { type Command, CommanderError, Option } from 'commander';
import type { AdmissionChain, Phase } from '../admission/chain.ts';
import type { Deadline } from '../admission/deadline.ts';
import { type HandledReview, handleAdmission } from '../admission/handler.ts';
import { type AdmissionApiVersion, type AdmissionRequest, type AdmissionResponse, responseReview } from '../admission/review.ts';
import type { KubeObject } from '../api/types.ts';
import { parseDuration } from '../config/duration.ts';
import { parseFeatureGates } from '../config/feature-gates.ts';
import { pluginExemptionsHelp } from '../config/plugin-exemptions.ts';
import { featureGatesHelp } from '../config/serve-config.ts';
import type { FeatureGateOverrides } from '../ports/feature-gates.ts';
import { silentLogger } from '../ports/logger.ts';
import type { RestMapper } from '../ports/rest-mapper.ts';
import type { BackendConfig } from '../wiring/backend.ts';
import { type Admission, type ClusterState, composeAdmission, StartupError, selectCatalogPlugins } from '../wiring/index.ts';
import { type Created, controllerBootstrapRoles, expandWorkload } from '../workloads/index.ts';
import { type InputDocument, readDocuments } from './inputs.ts';
import { CliError, type CliIO, parseSingleDocument, readInput } from './io.ts';
import { asKubeObject, type ManifestContext, manifestRequest, requestFor } from './review-requests.ts';
import {
  type DocumentError,
  exitCode,
  type FailOn,
  formatResults,
  type ObjectResult,
  objectResult,
  summarize,
  withCreated,
} from './review-results.ts';

/** The flags of withChainOptions. */
export interface ChainFlags {
  phase: string;
  plugins?: string[];
  enableAdmissionPlugins?: string[];
  disableAdmissionPlugins?: string[];
  pluginMode?: string[];
  admissionControlConfigFile?: string;
  pluginExemptionsFile?: string;
  featureGates?: string[];
  timeout: string;
  failOn: FailOn;
}

/** The flags of withManifestOptions. */
export interface ManifestFlags {
  filename?: string[];
  user?: string;
  groups?: string;
  uid?: string;
  namespace?: string;
}

export interface ReviewOptions extends ChainFlags, ManifestFlags {
  clusterState?: string;
  operation?: string;
  old?: string;
  subresource?: string;
}

interface ReviewCommandOptions extends ReviewOptions {
  output?: 'review' | 'json' | 'yaml' | 'table';
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function registerReviewCommand(program: Command, io: CliIO): void {
  withReviewOptions(
    program
      .command('review')
      .description(
        'run the chain offline on AdmissionReviews and manifests (files, directories or stdin), workloads with the pods their controllers would create',
      ),
  )
    .addOption(
      new Option(
        '-o, --output <format>',
        'review: the AdmissionReview with its response; json, yaml or table: the results per object (default: review for one AdmissionReview or plain manifest, else json)',
      ).choices(['review', 'json', 'yaml', 'table']),
    )
    .action(async (files: string[], options: ReviewCommandOptions) => {
      const code = await review(files, options, io);
      if (code !== 0) throw new CommanderError(code, 'admission-chain.review.fail-on', `--fail-on ${options.failOn}`);
    });
}

/** The input and chain options `review` takes, for every command that reviews requests offline. */
export function withReviewOptions(command: Command): Command {
  const withInput = command
    .argument(
      '[files...]',
      'AdmissionReviews or manifests, JSON or YAML, many documents and Lists; directories are read recursively; "-" or none reads stdin',
    )
    .requiredOption('--cluster-state <file>', 'the local cluster state (RBAC, service accounts, discovery, ...)');
  return withChainOptions(withManifestOptions(withInput, 'manifests or AdmissionReviews to review, like FILES (repeatable)'))
    .option('--operation <op>', 'for manifests: CREATE, UPDATE, DELETE or CONNECT (default CREATE, UPDATE with --old)')
    .option('--old <file>', 'for one manifest: the existing object, for UPDATE')
    .option('--subresource <name>', 'for manifests: the subresource being written');
}

/** Who writes the manifests, and where: for every command that builds requests from manifests. */
export function withManifestOptions(command: Command, filenameHelp: string): Command {
  return command
    .option('-f, --filename <path>', filenameHelp, collect)
    .option('--user <name>', 'for manifests: the requesting user', 'admin')
    .option('--groups <groups>', "for manifests: the requesting user's groups (comma-separated)")
    .option('--uid <uid>', "for manifests: the requesting user's uid")
    .option('--namespace <ns>', 'for manifests: namespace when the manifest has none', 'default');
}

/** Which plugins run and how, each object's deadline and the exit code: `review`'s, `explain`'s and `audit`'s. */
export function withChainOptions(command: Command): Command {
  return command
    .addOption(new Option('--phase <phase>', 'which webhook to act as').choices(['mutating', 'validating', 'all']).default('all'))
    .option('--plugins <names>', 'the exact plugin set (comma-separated)', collect)
    .option('--enable-admission-plugins <names>', 'plugins to enable in addition to the defaults', collect)
    .option('--disable-admission-plugins <names>', 'default plugins to disable', collect)
    .option('--plugin-mode <name=mode>', 'enforce, warn or audit, per plugin (repeatable)', collect)
    .option('--admission-control-config-file <file>', "kube-apiserver's AdmissionConfiguration file: the plugins' configuration")
    .option('--plugin-exemptions-file <file>', pluginExemptionsHelp)
    .option('--feature-gates <name=bool>', featureGatesHelp, collect)
    .addOption(
      new Option('--fail-on <result>', 'exit 1 when an object is denied (deny), also when one has warnings (warn), or never')
        .choices(['deny', 'warn', 'never'])
        .default('never'),
    )
    .option('--timeout <duration>', 'deadline for each document: its review and that of what its controllers create', '30s');
}

async function review(files: string[], options: ReviewCommandOptions, io: CliIO): Promise<number> {
  const prepared = await prepareReview(files, options, io);
  const reviewed = await reviewAll(prepared);
  const single = reviewed.length === 1 ? reviewed[0]! : undefined;
  const output = options.output ?? (single !== undefined && ('error' in single || single.creates.length === 0) ? 'review' : 'json');
  if (output === 'review' && single !== undefined && 'error' in single) throw new CliError(`${single.source}: ${single.error}`);
  for (const r of reviewed) if ('error' in r && single === undefined) io.stderr.write(`admission-chain: ${r.source}: ${r.error}\n`);
  const results = summarize(reviewed.map(toResult));
  if (output === 'review') {
    for (const r of reviewed.flatMap((r) => ('error' in r ? [] : flatten(r)))) {
      io.stdout.write(`${JSON.stringify({ ...responseReview(r.apiVersion, r.response), request: r.request }, null, 2)}\n`);
    }
  } else {
    io.stdout.write(formatResults(results, output));
  }
  return exitCode(results, options.failOn);
}

export interface PreparedReview {
  chain: AdmissionChain;
  phases: readonly Phase[];
  /** Each document's deadline (a tree of thousands must not share one). */
  timeoutMs: number;
  restMapper: RestMapper | undefined;
  documents: InputDocument[];
  /** How manifests become requests; each document's deadline supplies the signal. */
  context: Omit<ManifestContext, 'signal'>;
  oldObject?: KubeObject;
}

/** The chain, the documents and the deadline, from `review`'s options: everything but running them. */
export async function prepareReview(files: string[], options: ReviewOptions, io: CliIO): Promise<PreparedReview> {
  const { admission, phases, timeoutMs } = await prepareChain(
    options,
    (featureGates) => ({ kind: 'local', clusterState: options.clusterState!, featureGates }),
    io,
  );
  const { backend, chain } = admission;
  const documents = await readDocuments([...files, ...(options.filename ?? [])], io);
  let oldObject: KubeObject | undefined;
  if (options.old !== undefined) {
    if (documents.length !== 1) throw new CliError(`--old takes one manifest to review, found ${documents.length} documents`, 2);
    const { text, source } = await readInput(options.old, io);
    try {
      oldObject = asKubeObject(parseSingleDocument(text, source));
    } catch (error) {
      throw error instanceof CliError ? error : new CliError(`${source}: ${(error as Error).message}`);
    }
  }
  const context: PreparedReview['context'] = {
    ...manifestContext(options, backend.ports.restMapper),
    ...(options.operation === undefined ? {} : { operation: options.operation }),
    ...(options.subresource === undefined ? {} : { subresource: options.subresource }),
  };
  return { chain, phases, timeoutMs, restMapper: backend.ports.restMapper, documents, context, ...(oldObject ? { oldObject } : {}) };
}

/** The chain on a backend, the phases and each object's deadline, from withChainOptions' flags. */
export interface PreparedChain {
  admission: Admission;
  phases: readonly Phase[];
  timeoutMs: number;
}

/** Parses the chain flags and composes the chain on the backend they choose (bad flags exit 2). */
export async function prepareChain(
  options: ChainFlags,
  backendFor: (featureGates: FeatureGateOverrides) => BackendConfig,
  io: CliIO,
): Promise<PreparedChain> {
  let selection: ReturnType<typeof selectCatalogPlugins>;
  let featureGates: FeatureGateOverrides;
  let timeoutMs: number;
  try {
    selection = selectCatalogPlugins({
      plugins: options.plugins,
      enable: options.enableAdmissionPlugins,
      disable: options.disableAdmissionPlugins,
      modes: options.pluginMode,
    });
    featureGates = parseFeatureGates(options.featureGates);
  } catch (error) {
    throw new CliError((error as Error).message, 2);
  }
  try {
    timeoutMs = parseDuration(options.timeout);
  } catch (error) {
    throw new CliError(`--timeout: ${(error as Error).message}`, 2);
  }
  let admission: Admission;
  try {
    admission = await composeAdmission({
      backend: backendFor(featureGates),
      selection,
      admissionControlConfigFile: options.admissionControlConfigFile,
      pluginExemptionsFile: options.pluginExemptionsFile,
      logger: silentLogger,
      warn: (warning) => io.stderr.write(`admission-chain: warning: ${warning}\n`),
      completeLocalState: withControllerRoles,
    });
  } catch (error) {
    throw error instanceof StartupError ? new CliError(error.message, error.usage ? 2 : 1) : error;
  }
  const phases: readonly Phase[] =
    options.phase === 'all' ? ['admit', 'validate'] : options.phase === 'mutating' ? ['admit'] : ['validate'];
  return { admission, phases, timeoutMs };
}

/** How manifests become requests, from withManifestOptions' flags; each document's deadline adds the signal. */
export function manifestContext(options: ManifestFlags, restMapper: RestMapper | undefined): Omit<ManifestContext, 'signal'> {
  const groups = (options.groups ?? '')
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean);
  return {
    restMapper,
    namespace: options.namespace!,
    userInfo: { username: options.user!, groups, ...(options.uid ? { uid: options.uid } : {}) },
  };
}

/** One object's review, and the reviews of what its controllers would create from it. */
export interface ReviewedObject {
  source: string;
  apiVersion: AdmissionApiVersion;
  request: AdmissionRequest;
  response: AdmissionResponse;
  handled: HandledReview[];
  /** The controller that creates it, for objects expanded from a workload. */
  controller?: string;
  creates: ReviewedObject[];
}

/** Every document reviewed in order; a document that cannot be is its error, and the rest go on. */
export async function reviewAll(prepared: PreparedReview): Promise<Array<ReviewedObject | DocumentError>> {
  const reviewed: Array<ReviewedObject | DocumentError> = [];
  const now = new Date();
  for (const document of prepared.documents) {
    reviewed.push(
      document.error !== undefined
        ? { source: document.source, error: document.error }
        : await reviewDocument(prepared, document.source, document.value, now),
    );
  }
  return reviewed;
}

/** What reviewing documents needs: the chain, the phases, each one's deadline and how manifests become requests. */
export type DocumentReview = Pick<PreparedReview, 'chain' | 'phases' | 'timeoutMs' | 'context' | 'oldObject'>;

/**
 * One document under its own deadline: its request, and for a manifest written by CREATE or UPDATE
 * what its controllers would create (CronJobs' Jobs are scheduled at `now`). A document that cannot
 * be reviewed is its error; a CliError (a bad flag) stops the run.
 */
export async function reviewDocument(
  prepared: DocumentReview,
  source: string,
  value: unknown,
  now: Date,
): Promise<ReviewedObject | DocumentError> {
  const deadline = deadlineIn(prepared.timeoutMs);
  const run: RunContext = { ...prepared, deadline, context: { ...prepared.context, signal: deadline.signal } };
  try {
    const { apiVersion, request, fromManifest } = await requestFor(value, run.context, prepared.oldObject);
    const result = await reviewRequest(run, source, apiVersion, request);
    if (fromManifest && (request.operation === 'CREATE' || request.operation === 'UPDATE')) {
      result.creates = await reviewCreated(run, source, expandWorkload(storedObject(result), { now }));
    }
    return result;
  } catch (error) {
    if (error instanceof CliError) throw error;
    return { source, error: (error as Error).message };
  }
}

/** What reviewing one document needs: the chain, and that document's deadline. */
type RunContext = Omit<DocumentReview, 'context'> & { deadline: Deadline; context: ManifestContext };

function deadlineIn(timeoutMs: number): Deadline {
  return { signal: AbortSignal.timeout(timeoutMs), expiresAt: performance.now() + timeoutMs };
}

async function reviewRequest(
  prepared: RunContext,
  source: string,
  apiVersion: AdmissionApiVersion,
  request: AdmissionRequest,
): Promise<ReviewedObject> {
  const { response, handled } = await runPhases({ ...prepared, request });
  return { source, apiVersion, request, response, handled, creates: [] };
}

async function reviewCreated(prepared: RunContext, source: string, created: readonly Created[]): Promise<ReviewedObject[]> {
  const reviewed: ReviewedObject[] = [];
  for (const c of created) {
    const request = await manifestRequest(c.object, 'CREATE', { ...prepared.context, userInfo: c.user });
    const result = await reviewRequest(prepared, source, 'admission.k8s.io/v1', request);
    result.controller = c.controller;
    result.creates = await reviewCreated(prepared, source, c.creates);
    reviewed.push(result);
  }
  return reviewed;
}

// What the controller reads back: the object as the mutating phase left it, in its namespace.
function storedObject(reviewed: ReviewedObject): KubeObject {
  const object = reviewed.handled.find((h) => h.mutatedObject !== undefined)?.mutatedObject ?? reviewed.request.object!;
  const namespace = reviewed.request.namespace;
  return namespace === undefined ? object : { ...object, metadata: { ...object.metadata, namespace } };
}

/** The object and everything created from it, depth first. */
export function flatten(reviewed: ReviewedObject): ReviewedObject[] {
  return [reviewed, ...reviewed.creates.flatMap(flatten)];
}

export function toResult(reviewed: ReviewedObject | DocumentError): ObjectResult | DocumentError {
  if ('error' in reviewed) return reviewed;
  const { request } = reviewed;
  const identity = {
    source: reviewed.source,
    apiVersion: request.kind.group ? `${request.kind.group}/${request.kind.version}` : request.kind.version,
    kind: request.kind.kind,
    ...(request.namespace ? { namespace: request.namespace } : {}),
    name: request.name || (request.object?.metadata?.generateName ?? ''),
    user: request.userInfo?.username ?? '',
  };
  const rejectedBy = reviewed.handled.find((h) => h.rejectedBy !== undefined)?.rejectedBy;
  const own = objectResult(identity, reviewed.response, rejectedBy);
  return withCreated(
    own,
    reviewed.creates.map((c) => toResult(c) as ObjectResult),
  );
}

/** Runs the phases in order, as `kubectl apply --dry-run=server` would: the patch applied between them. */
export async function runPhases(
  prepared: Pick<RunContext, 'chain' | 'phases' | 'deadline'> & { request: AdmissionRequest },
): Promise<{ response: AdmissionResponse; handled: HandledReview[] }> {
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

// A real API server holds the controllers' bootstrap roles; the file may not, and without them
// every pod a controller creates would fail OwnerReferencesPermissionEnforcement offline.
function withControllerRoles(state: ClusterState): ClusterState {
  const bootstrap = controllerBootstrapRoles();
  const missing = <T extends KubeObject>(present: readonly T[], wanted: KubeObject[]) => {
    const names = new Set(present.map((o) => o.metadata?.name));
    return wanted.filter((o) => !names.has(o.metadata?.name)) as unknown as T[];
  };
  return {
    ...state,
    clusterRoles: [...state.clusterRoles, ...missing(state.clusterRoles, bootstrap.clusterRoles)],
    clusterRoleBindings: [...state.clusterRoleBindings, ...missing(state.clusterRoleBindings, bootstrap.clusterRoleBindings)],
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
