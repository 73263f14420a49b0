// ImagePolicyWebhook's configuration (upstream config.go and NewImagePolicyWebhook): the
// `imagePolicy` object of its AdmissionConfiguration section (or of a legacy file), decoded as Go's
// encoding/json decodes it (field names matched case-insensitively, unknown fields ignored, the
// first type error reported), then normalized as upstream normalizes it: 0 means the default, -1
// turns the value off, anything else is scaled (TTLs are seconds, the backoff milliseconds) and must
// lie in its range. Upstream's messages, with the bounds printed as Go prints durations.
import { type PluginConfiguration, PluginConfigurationError } from '../../ports/plugin-configuration.ts';
import { foldName } from '../../util/go-json-reader.ts';
import { isPlainObject } from '../../util/plain-object.ts';
import { goDuration, int64 } from './go-duration.ts';

const nanosecond = 1n;
const millisecond = 1_000_000n;
const second = 1_000_000_000n;
const minute = 60n * second;

/** Upstream's constants, in nanoseconds. */
export const limits = {
  defaultRetryBackoff: 500n * millisecond,
  minRetryBackoff: nanosecond,
  maxRetryBackoff: 5n * minute,
  defaultAllowTTL: 5n * minute,
  defaultDenyTTL: 30n * second,
  minAllowTTL: second,
  maxAllowTTL: 30n * minute,
  minDenyTTL: second,
  maxDenyTTL: 30n * minute,
} as const;

/** The sentinels: 0 asks for the default, -1 turns the TTL (or the backoff) off. */
const useDefault = 0n;
const disabled = -1n;

/** The fields as decoded: the durations still in the file's units. */
export interface DecodedConfiguration {
  readonly kubeConfigFile: string;
  readonly allowTTL: bigint;
  readonly denyTTL: bigint;
  readonly retryBackoff: bigint;
  readonly defaultAllow: boolean;
}

/** After normalization: every duration in nanoseconds (0: off). */
export type ImagePolicyConfiguration = DecodedConfiguration;

export class NormalizationError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.name = 'NormalizationError';
    this.field = field;
  }
}

/** The configuration the plugin runs with, or a PluginConfigurationError naming the file and field. */
export function parseConfiguration(configuration: PluginConfiguration | undefined, pluginName: string): ImagePolicyConfiguration {
  // Upstream's factory is handed no reader when the AdmissionConfiguration has nothing for it.
  if (configuration === undefined)
    throw new Error(
      `admission plugin ${pluginName}: no config specified (an imagePolicy configuration in --admission-control-config-file)`,
    );
  const fail = (field: string, detail: string) => new PluginConfigurationError(configuration, pluginName, field, detail);
  const decoded = decodeConfiguration(configuration.documents[0], (detail) => fail('', detail));
  let normalized: ImagePolicyConfiguration;
  try {
    normalized = normalizeConfiguration(decoded);
  } catch (error) {
    if (error instanceof NormalizationError) throw fail(error.field, error.message);
    throw error;
  }
  // Upstream then falls back to the default kubeconfig loading rules (the environment, the home
  // folder, in-cluster): a webhook's backend must be named, so an empty path is refused here.
  if (normalized.kubeConfigFile === '') throw fail('imagePolicy.kubeConfigFile', "must name the backend's kubeconfig file");
  return normalized;
}

type GoType = 'string' | 'time.Duration' | 'bool';
const fields: Record<string, { name: keyof DecodedConfiguration; type: GoType }> = {
  KUBECONFIGFILE: { name: 'kubeConfigFile', type: 'string' },
  ALLOWTTL: { name: 'allowTTL', type: 'time.Duration' },
  DENYTTL: { name: 'denyTTL', type: 'time.Duration' },
  RETRYBACKOFF: { name: 'retryBackoff', type: 'time.Duration' },
  DEFAULTALLOW: { name: 'defaultAllow', type: 'bool' },
};

/** encoding/json into upstream's AdmissionConfig; `fail` gets Go's UnmarshalTypeError text. */
export function decodeConfiguration(document: unknown, fail: (detail: string) => Error): DecodedConfiguration {
  const decoded = { kubeConfigFile: '', allowTTL: 0n, denyTTL: 0n, retryBackoff: 0n, defaultAllow: false };
  if (document === null || document === undefined) return decoded;
  if (!isPlainObject(document))
    throw fail(`json: cannot unmarshal ${jsonKind(document)} into Go value of type imagepolicy.AdmissionConfig`);
  let firstError: string | undefined;
  // Every key that folds to the field is decoded, the last one winning, as encoding/json does.
  for (const [key, section] of Object.entries(document)) {
    if (foldName(key) !== 'IMAGEPOLICY' || section === null) continue;
    if (!isPlainObject(section)) {
      firstError ??= `json: cannot unmarshal ${jsonKind(section)} into Go struct field AdmissionConfig.imagePolicy of type imagepolicy.imagePolicyWebhookConfig`;
      continue;
    }
    for (const [name, value] of Object.entries(section)) {
      const field = fields[foldName(name)];
      if (field === undefined || value === null) continue;
      const decodedValue = decodeField(value, field.type);
      if (decodedValue === undefined) {
        firstError ??= `json: cannot unmarshal ${jsonKind(value, field.type)} into Go struct field imagePolicyWebhookConfig.imagePolicy.${field.name} of type ${field.type}`;
        continue;
      }
      (decoded as Record<string, unknown>)[field.name] = decodedValue;
    }
  }
  if (firstError !== undefined) throw fail(firstError);
  return decoded;
}

function decodeField(value: unknown, type: GoType): string | bigint | boolean | undefined {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? value : undefined;
    case 'bool':
      return typeof value === 'boolean' ? value : undefined;
    case 'time.Duration':
      if (typeof value === 'bigint') return BigInt.asIntN(64, value) === value ? value : undefined;
      if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) >= 2 ** 63) return undefined;
      return BigInt(value);
  }
}

/** UnmarshalTypeError's Value: the JSON kind, and a number's text when it went to a number field. */
function jsonKind(value: unknown, type?: GoType): string {
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
    case 'bigint':
      return type === 'time.Duration' ? `number ${String(value)}` : 'number';
    default:
      return 'object';
  }
}

/** normalizeWebhookConfig: the backoff, then the allow cache, then the deny cache. */
export function normalizeConfiguration(decoded: DecodedConfiguration): ImagePolicyConfiguration {
  return {
    ...decoded,
    retryBackoff: normalizeDuration(
      'imagePolicy.retryBackoff',
      millisecond,
      decoded.retryBackoff,
      limits.minRetryBackoff,
      limits.maxRetryBackoff,
      limits.defaultRetryBackoff,
    ),
    allowTTL: normalizeDuration(
      'imagePolicy.allowTTL',
      second,
      decoded.allowTTL,
      limits.minAllowTTL,
      limits.maxAllowTTL,
      limits.defaultAllowTTL,
    ),
    denyTTL: normalizeDuration('imagePolicy.denyTTL', second, decoded.denyTTL, limits.minDenyTTL, limits.maxDenyTTL, limits.defaultDenyTTL),
  };
}

function normalizeDuration(field: string, scale: bigint, value: bigint, min: bigint, max: bigint, fallback: bigint): bigint {
  if (value === disabled) return 0n;
  if (value === useDefault) return fallback;
  const scaled = int64(value * scale);
  if (scaled < min || scaled > max)
    throw new NormalizationError(field, `valid value is between ${goDuration(min)} and ${goDuration(max)}, got ${goDuration(scaled)}`);
  return scaled;
}

/** Nanoseconds as the milliseconds timers take. */
export function toMilliseconds(nanoseconds: bigint): number {
  return Number(nanoseconds) / 1e6;
}
