// `serve` flags for what the webhook manages in the cluster itself: its registration in the two
// webhook configurations the chart installs, and (self-managed TLS) its CA and serving certificate.
import { type Command, Option } from 'commander';
import { type CertificatePolicy, policyProblem } from '../certificates/policy.ts';
import { parseDuration } from './duration.ts';

export interface SelfManagedTlsConfig {
  secret: { namespace: string; name: string };
  policy: CertificatePolicy;
}

export interface ManagementConfig {
  /** Name of the Mutating- and ValidatingWebhookConfiguration kept registered; undefined: none. */
  webhookConfiguration: string | undefined;
  /** A CA bundle file to inject into the registered webhooks (e.g. cert-manager's ca.crt). */
  webhookCaBundleFile: string | undefined;
  selfManagedTls: SelfManagedTlsConfig | undefined;
  reconcileIntervalMs: number;
}

export interface RawManagementOptions {
  webhookConfiguration?: string;
  webhookCaBundleFile?: string;
  selfManagedTlsSecret?: string;
  selfManagedTlsName?: string[] | string;
  selfManagedTlsDuration?: string;
  selfManagedTlsRenewBefore?: string;
  selfManagedTlsCaDuration?: string;
  reconcileInterval?: string;
}

const defaults = {
  selfManagedTlsDuration: '2160h',
  selfManagedTlsRenewBefore: '720h',
  selfManagedTlsCaDuration: '87600h',
  reconcileInterval: '30s',
} as const;

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];
const opt = (flags: string, description: string, env: string) => new Option(flags, description).env(`ADMISSION_CHAIN_${env}`);

export function addManagementOptions(command: Command): Command {
  return command
    .addOption(
      opt(
        '--webhook-configuration <name>',
        'keep the webhooks of this Mutating/ValidatingWebhookConfiguration registered (from its template annotation, once a replica answers)',
        'WEBHOOK_CONFIGURATION',
      ),
    )
    .addOption(
      opt('--webhook-ca-bundle-file <file>', 'CA bundle (PEM) to put in the registered webhooks’ caBundle', 'WEBHOOK_CA_BUNDLE_FILE'),
    )
    .addOption(
      opt(
        '--self-managed-tls-secret <namespace/name>',
        'issue, store and rotate a CA and serving certificate in this Secret, written to --tls-cert-file and --tls-private-key-file',
        'SELF_MANAGED_TLS_SECRET',
      ),
    )
    .addOption(
      opt(
        '--self-managed-tls-name <name>',
        'a DNS name or IP address the self-managed serving certificate covers (repeatable; the first is its common name)',
        'SELF_MANAGED_TLS_NAME',
      ).argParser(collect),
    )
    .addOption(
      opt('--self-managed-tls-duration <duration>', 'lifetime of a self-managed serving certificate', 'SELF_MANAGED_TLS_DURATION').default(
        defaults.selfManagedTlsDuration,
      ),
    )
    .addOption(
      opt(
        '--self-managed-tls-renew-before <duration>',
        're-issue the serving certificate when it has less than this left',
        'SELF_MANAGED_TLS_RENEW_BEFORE',
      ).default(defaults.selfManagedTlsRenewBefore),
    )
    .addOption(
      opt('--self-managed-tls-ca-duration <duration>', 'lifetime of a self-managed CA', 'SELF_MANAGED_TLS_CA_DURATION').default(
        defaults.selfManagedTlsCaDuration,
      ),
    )
    .addOption(
      opt('--reconcile-interval <duration>', 'how often registration and certificates are checked', 'RECONCILE_INTERVAL').default(
        defaults.reconcileInterval,
      ),
    );
}

export function parseManagementOptions(given: RawManagementOptions): ManagementConfig {
  const raw = {
    ...given,
    selfManagedTlsDuration: given.selfManagedTlsDuration ?? defaults.selfManagedTlsDuration,
    selfManagedTlsRenewBefore: given.selfManagedTlsRenewBefore ?? defaults.selfManagedTlsRenewBefore,
    selfManagedTlsCaDuration: given.selfManagedTlsCaDuration ?? defaults.selfManagedTlsCaDuration,
    reconcileInterval: given.reconcileInterval ?? defaults.reconcileInterval,
  };
  const reconcileIntervalMs = duration('--reconcile-interval', raw.reconcileInterval);
  if (reconcileIntervalMs < 100) throw new Error(`--reconcile-interval ${JSON.stringify(raw.reconcileInterval)}: must be at least 100ms`);
  let selfManagedTls: SelfManagedTlsConfig | undefined;
  const names =
    raw.selfManagedTlsName === undefined ? [] : Array.isArray(raw.selfManagedTlsName) ? raw.selfManagedTlsName : [raw.selfManagedTlsName];
  if (raw.selfManagedTlsSecret !== undefined) {
    const [namespace, name, ...rest] = raw.selfManagedTlsSecret.split('/');
    if (!namespace || !name || rest.length > 0)
      throw new Error(`--self-managed-tls-secret ${JSON.stringify(raw.selfManagedTlsSecret)}: expected namespace/name`);
    if (raw.webhookCaBundleFile !== undefined)
      throw new Error('--webhook-ca-bundle-file and --self-managed-tls-secret exclude each other: the self-managed CA is the bundle');
    const policy: CertificatePolicy = {
      commonName: names[0] ?? '',
      names,
      durationMs: duration('--self-managed-tls-duration', raw.selfManagedTlsDuration),
      renewBeforeMs: duration('--self-managed-tls-renew-before', raw.selfManagedTlsRenewBefore),
      caDurationMs: duration('--self-managed-tls-ca-duration', raw.selfManagedTlsCaDuration),
    };
    const problem = policyProblem(policy);
    if (problem !== undefined) throw new Error(`--self-managed-tls-*: ${problem}`);
    selfManagedTls = { secret: { namespace, name }, policy };
  } else if (names.length > 0) {
    throw new Error('--self-managed-tls-name needs --self-managed-tls-secret');
  }
  return {
    webhookConfiguration: raw.webhookConfiguration,
    webhookCaBundleFile: raw.webhookCaBundleFile,
    selfManagedTls,
    reconcileIntervalMs,
  };
}

function duration(flag: string, value: string): number {
  try {
    return parseDuration(value);
  } catch (error) {
    throw new Error(`${flag}: ${(error as Error).message}`);
  }
}
