// `serve` flags, validated once into a typed config. Every flag has an environment fallback
// (ADMISSION_CHAIN_<FLAG>) so the chart can set either.
import { type Command, Option } from 'commander';
import type { PluginDefinition } from '../admission/plugin.ts';
import { type LogLevel, logLevels } from '../observability/logger.ts';
import type { FeatureGateOverrides } from '../ports/feature-gates.ts';
import { parseDuration } from './duration.ts';
import { parseFeatureGates } from './feature-gates.ts';
import { addManagementOptions, type ManagementConfig, parseManagementOptions, type RawManagementOptions } from './management-options.ts';
import { pluginExemptionsHelp } from './plugin-exemptions.ts';
import { type PluginSelection, selectPlugins } from './plugins.ts';

/**
 * controller-runtime's body limit, for the same reason: an UPDATE's review carries the object and the
 * old object, each up to kube-apiserver's 3 MiB request limit, and the envelope around them.
 */
export const defaultMaxRequestBodyBytes = 7 * 1024 * 1024;
/** Heap the requests at work may hold together, as estimated from their bodies (src/server/json-weight.ts). */
export const defaultMaxInFlightBytes = 160 * 1024 * 1024;
/** kube-apiserver pools up to 100 idle connections per webhook host and API server replica. */
export const defaultMaxConnections = 500;

/** Who answers authorization questions on the cluster backend. */
export const AuthorizerMode = {
  /** Every question goes to the SubjectAccessReview API. */
  SubjectAccessReview: 'sar',
  /** RBAC informers answer "allow" locally; everything else goes to SubjectAccessReview. */
  RbacMirror: 'rbac-mirror',
} as const;
export type AuthorizerMode = (typeof AuthorizerMode)[keyof typeof AuthorizerMode];
const authorizerModes: readonly string[] = Object.values(AuthorizerMode);

export interface ServeConfig {
  host: string | undefined;
  port: number;
  metricsPort: number;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  clientCaFile: string | undefined;
  clusterState: string | undefined;
  kubeconfig: string | undefined;
  plugins: PluginSelection;
  logLevel: LogLevel;
  requestTimeoutMs: number;
  shutdownDelayMs: number;
  drainTimeoutMs: number;
  sarAllowedTtlMs: number;
  sarDeniedTtlMs: number;
  discoveryRefreshIntervalMs: number;
  maxRequestBodyBytes: number;
  maxInFlightBytes: number;
  maxConnections: number;
  maxSubjectAccessReviewsPerRequest: number;
  /** Absent means "sar". */
  authorizer?: AuthorizerMode;
  admissionControlConfigFile: string | undefined;
  /** --plugin-exemptions-file: who and where each plugin does not act; read at start-up. */
  pluginExemptionsFile?: string | undefined;
  /** --feature-gates: what the cluster's kube-apiserver runs with, over its version's defaults. */
  featureGates: FeatureGateOverrides;
  /** Registration in the webhook configurations and self-managed TLS (src/registration). */
  management?: ManagementConfig;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** Shared with `review`, which takes the same flag. */
export const featureGatesHelp =
  "kube-apiserver feature gates the plugins follow, NAME=true|false (comma-separated, repeatable); default: the cluster version's defaults (cluster backend) or 1.34's (--cluster-state)";

function opt(flags: string, description: string, env: string): Option {
  return new Option(flags, description).env(`ADMISSION_CHAIN_${env}`);
}

export function addServeOptions(command: Command): Command {
  command
    .addOption(opt('--bind-address <host>', 'address to listen on (default: all)', 'BIND_ADDRESS'))
    .addOption(opt('--port <port>', 'HTTPS port for /mutate and /validate', 'PORT').default('8443'))
    .addOption(opt('--metrics-port <port>', 'plain-HTTP port for /livez, /readyz, /healthz and /metrics', 'METRICS_PORT').default('8080'))
    .addOption(opt('--tls-cert-file <file>', 'serving certificate (PEM); re-read when it changes', 'TLS_CERT_FILE'))
    .addOption(opt('--tls-private-key-file <file>', 'serving private key (PEM); re-read when it changes', 'TLS_PRIVATE_KEY_FILE'))
    .addOption(
      opt(
        '--client-ca-file <file>',
        "CA bundle (PEM) callers' client certificates must chain to; refuses others at the TLS handshake; re-read when it changes",
        'CLIENT_CA_FILE',
      ),
    )
    .addOption(opt('--cluster-state <file>', 'answer from a local cluster-state file instead of the cluster', 'CLUSTER_STATE'))
    .addOption(
      opt(
        '--kubeconfig <file>',
        'kubeconfig for the cluster backend (default: KUBECONFIG, then ~/.kube/config, then in-cluster)',
        'KUBECONFIG',
      ),
    )
    .addOption(
      opt(
        '--enable-admission-plugins <names>',
        'plugins to enable in addition to the defaults (comma-separated, repeatable)',
        'ENABLE_ADMISSION_PLUGINS',
      ).argParser(collect),
    )
    .addOption(
      opt(
        '--disable-admission-plugins <names>',
        'default plugins to disable (comma-separated, repeatable)',
        'DISABLE_ADMISSION_PLUGINS',
      ).argParser(collect),
    )
    .addOption(
      opt('--plugins <names>', 'the exact plugin set (comma-separated); excludes --enable/--disable', 'PLUGINS').argParser(collect),
    )
    .addOption(
      opt('--plugin-mode <name=mode>', 'enforce (default), warn or audit, per plugin (repeatable)', 'PLUGIN_MODE').argParser(collect),
    )
    .addOption(opt('--log-level <level>', `one of ${logLevels.join(', ')}`, 'LOG_LEVEL').default('info'))
    .addOption(
      opt(
        '--request-timeout <duration>',
        'deadline for one admission request; keep it below the webhook timeoutSeconds',
        'REQUEST_TIMEOUT',
      ).default('9s'),
    )
    .addOption(
      opt('--shutdown-delay <duration>', 'on SIGTERM, how long readiness is false before we stop accepting', 'SHUTDOWN_DELAY').default(
        '5s',
      ),
    )
    .addOption(opt('--drain-timeout <duration>', 'the longest we wait for in-flight requests on shutdown', 'DRAIN_TIMEOUT').default('20s'))
    .addOption(opt('--sar-allowed-ttl <duration>', 'how long an allowed SubjectAccessReview is cached', 'SAR_ALLOWED_TTL').default('10s'))
    .addOption(opt('--sar-denied-ttl <duration>', 'how long a denied SubjectAccessReview is cached', 'SAR_DENIED_TTL').default('10s'))
    .addOption(
      opt(
        '--discovery-refresh-interval <duration>',
        'least time between discovery refreshes on a kind miss',
        'DISCOVERY_REFRESH_INTERVAL',
      ).default('30s'),
    )
    .addOption(
      opt('--max-request-body-bytes <bytes>', 'larger AdmissionReview bodies are refused (413)', 'MAX_REQUEST_BODY_BYTES').default(
        String(defaultMaxRequestBodyBytes),
      ),
    )
    .addOption(
      opt(
        '--max-in-flight-bytes <bytes>',
        'estimated heap all requests in flight may hold together; others wait for room until their deadline',
        'MAX_IN_FLIGHT_BYTES',
      ).default(String(defaultMaxInFlightBytes)),
    )
    .addOption(
      opt('--max-connections <n>', 'webhook connections open at once; more are closed on arrival', 'MAX_CONNECTIONS').default(
        String(defaultMaxConnections),
      ),
    )
    .addOption(
      opt(
        '--max-subject-access-reviews-per-request <n>',
        'SubjectAccessReviews one admission request may send (cache hits are free); beyond, the check fails closed',
        'MAX_SUBJECT_ACCESS_REVIEWS_PER_REQUEST',
      ).default('100'),
    )
    .addOption(
      opt(
        '--authorizer <mode>',
        `who answers authorization questions on the cluster backend: ${authorizerModes.join(' or ')} (rbac-mirror: RBAC informers answer "allow" locally, the rest goes to SubjectAccessReview)`,
        'AUTHORIZER',
      ).default(AuthorizerMode.SubjectAccessReview),
    )
    .addOption(
      opt(
        '--admission-control-config-file <file>',
        "kube-apiserver's AdmissionConfiguration file: the plugins' configuration",
        'ADMISSION_CONTROL_CONFIG_FILE',
      ),
    )
    .addOption(opt('--plugin-exemptions-file <file>', pluginExemptionsHelp, 'PLUGIN_EXEMPTIONS_FILE'))
    .addOption(opt('--feature-gates <name=bool>', featureGatesHelp, 'FEATURE_GATES').argParser(collect));
  return addManagementOptions(command);
}

export interface RawServeOptions extends RawManagementOptions {
  bindAddress?: string;
  port: string;
  metricsPort: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  clientCaFile?: string;
  clusterState?: string;
  kubeconfig?: string;
  enableAdmissionPlugins?: string[] | string;
  disableAdmissionPlugins?: string[] | string;
  plugins?: string[] | string;
  pluginMode?: string[] | string;
  logLevel: string;
  requestTimeout: string;
  shutdownDelay: string;
  drainTimeout: string;
  sarAllowedTtl: string;
  sarDeniedTtl: string;
  discoveryRefreshInterval: string;
  maxRequestBodyBytes: string;
  maxInFlightBytes: string;
  maxConnections: string;
  maxSubjectAccessReviewsPerRequest: string;
  authorizer?: string;
  admissionControlConfigFile?: string;
  pluginExemptionsFile?: string;
  featureGates?: string[] | string;
}

/** Checks every flag; the error names the flag and the bad value. */
export function parseServeConfig(raw: RawServeOptions, ordered: readonly PluginDefinition[], defaults: readonly string[]): ServeConfig {
  if (!raw.tlsCertFile || !raw.tlsPrivateKeyFile) {
    throw new Error('--tls-cert-file and --tls-private-key-file are required (generate development certificates with `npm run certs`)');
  }
  if (!(logLevels as readonly string[]).includes(raw.logLevel)) {
    throw new Error(`--log-level ${JSON.stringify(raw.logLevel)}: expected one of ${logLevels.join(', ')}`);
  }
  const config: ServeConfig = {
    host: raw.bindAddress,
    port: port('--port', raw.port),
    metricsPort: port('--metrics-port', raw.metricsPort),
    tlsCertFile: raw.tlsCertFile,
    tlsPrivateKeyFile: raw.tlsPrivateKeyFile,
    clientCaFile: raw.clientCaFile,
    clusterState: raw.clusterState,
    kubeconfig: raw.kubeconfig,
    plugins: selectPlugins(ordered, defaults, {
      plugins: list(raw.plugins),
      enable: list(raw.enableAdmissionPlugins),
      disable: list(raw.disableAdmissionPlugins),
      modes: list(raw.pluginMode),
    }),
    logLevel: raw.logLevel as LogLevel,
    requestTimeoutMs: duration('--request-timeout', raw.requestTimeout, { min: 1 }),
    shutdownDelayMs: duration('--shutdown-delay', raw.shutdownDelay, { min: 0 }),
    drainTimeoutMs: duration('--drain-timeout', raw.drainTimeout, { min: 1 }),
    sarAllowedTtlMs: duration('--sar-allowed-ttl', raw.sarAllowedTtl, { min: 0 }),
    sarDeniedTtlMs: duration('--sar-denied-ttl', raw.sarDeniedTtl, { min: 0 }),
    discoveryRefreshIntervalMs: duration('--discovery-refresh-interval', raw.discoveryRefreshInterval, { min: 0 }),
    maxRequestBodyBytes: count('--max-request-body-bytes', raw.maxRequestBodyBytes, 1024),
    maxInFlightBytes: count('--max-in-flight-bytes', raw.maxInFlightBytes, 1024 * 1024),
    maxConnections: count('--max-connections', raw.maxConnections, 1),
    maxSubjectAccessReviewsPerRequest: count('--max-subject-access-reviews-per-request', raw.maxSubjectAccessReviewsPerRequest, 1),
    authorizer: authorizerMode(raw.authorizer ?? AuthorizerMode.SubjectAccessReview, raw.clusterState),
    admissionControlConfigFile: raw.admissionControlConfigFile,
    pluginExemptionsFile: raw.pluginExemptionsFile,
    featureGates: parseFeatureGates(list(raw.featureGates)),
    management: parseManagementOptions(raw),
  };
  // The largest body must fit the in-flight budget with room to parse it: the lightest body of a size
  // (one long string) is estimated at seven times its bytes to mutate (src/server/json-weight.ts).
  if (config.maxInFlightBytes < minimumInFlightPerBodyByte * config.maxRequestBodyBytes) {
    throw new Error(
      `--max-in-flight-bytes ${config.maxInFlightBytes} must be at least ${minimumInFlightPerBodyByte} times --max-request-body-bytes (${config.maxRequestBodyBytes}), or the largest body could never be handled`,
    );
  }
  if (config.port === config.metricsPort && config.port !== 0) {
    throw new Error(`--port and --metrics-port must differ (both ${config.port})`);
  }
  return config;
}

/** --max-in-flight-bytes at least this many times --max-request-body-bytes. */
export const minimumInFlightPerBodyByte = 8;

function authorizerMode(value: string, clusterState: string | undefined): AuthorizerMode {
  if (!authorizerModes.includes(value))
    throw new Error(`--authorizer ${JSON.stringify(value)}: expected one of ${authorizerModes.join(', ')}`);
  // The local backend answers every question from the file's RBAC already.
  if (value === AuthorizerMode.RbacMirror && clusterState !== undefined)
    throw new Error("--authorizer rbac-mirror needs the cluster backend; --cluster-state answers from the file's RBAC already");
  return value as AuthorizerMode;
}

function list(value: string[] | string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

function port(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new Error(`${flag} ${JSON.stringify(value)}: expected a port number 0-65535`);
  return n;
}

function count(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new Error(`${flag} ${JSON.stringify(value)}: expected a whole number`);
  if (n < min) throw new Error(`${flag} ${JSON.stringify(value)}: must be at least ${min}`);
  return n;
}

function duration(flag: string, value: string, bounds: { min: number }): number {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (error) {
    throw new Error(`${flag}: ${(error as Error).message}`);
  }
  if (ms < bounds.min) throw new Error(`${flag} ${JSON.stringify(value)}: must be at least ${bounds.min}ms`);
  return ms;
}
