// EventRateLimit's configuration (upstream LoadConfiguration and ValidateConfiguration): an
// eventratelimit.admission.k8s.io/v1alpha1 Configuration whose limits each name a type (Server,
// Namespace, User, SourceAndObject), a qps, a burst and, but for Server, a cacheSize (0: 4096).
// v1alpha1 is the only version kube-apiserver registers, and it has no defaults; with no
// configuration at all upstream validates an empty one and refuses to start, and so do we.
import { aggregateMessage } from '../../api/aggregate.ts';
import { type PluginConfiguration, PluginConfigurationError } from '../../ports/plugin-configuration.ts';
import { isPlainObject } from '../../util/plain-object.ts';

const apiVersions = ['eventratelimit.admission.k8s.io/v1alpha1'];

export const LimitType = {
  /** One bucket for every event the server receives. */
  Server: 'Server',
  Namespace: 'Namespace',
  User: 'User',
  /** One bucket per event source (component, host) and involved object. */
  SourceAndObject: 'SourceAndObject',
} as const;
export type LimitType = (typeof LimitType)[keyof typeof LimitType];

// Upstream lists them from a Go map, in an order that changes from run to run; this is the API's.
const limitTypes: readonly string[] = Object.values(LimitType);

export interface Limit {
  /** A LimitType once validated; any string as decoded. */
  readonly type: string;
  readonly qps: number;
  readonly burst: number;
  readonly cacheSize: number;
}

export interface EventRateLimitConfiguration {
  /** undefined when the document has none (Go's nil slice), which prints differently from []. */
  readonly limits: readonly Limit[] | undefined;
}

/** Upstream's defaultCacheSize, for limits that set none. */
export const defaultCacheSize = 4096;

/** A configuration that validates, or a PluginConfigurationError with upstream's field errors. */
export function parseConfiguration(configuration: PluginConfiguration | undefined, pluginName: string): EventRateLimitConfiguration {
  if (configuration === undefined) {
    const errors = validateConfiguration({ limits: undefined });
    throw new Error(
      `admission plugin ${pluginName} needs a configuration (an ${apiVersions[0]} Configuration in --admission-control-config-file): ${aggregateMessage(errors)}`,
    );
  }
  const fail = (field: string, detail: string) => new PluginConfigurationError(configuration, pluginName, field, detail);
  const decoded = decodeConfiguration(configuration.documents[0], fail);
  const errors = validateConfiguration(decoded);
  if (errors.length > 0) throw fail('', aggregateMessage(errors));
  return decoded;
}

type Fail = (field: string, detail: string) => Error;

/** The decoder's part: the type's fields, each of Go's type (int32 for the numbers); unknown fields ignored. */
function decodeConfiguration(document: unknown, fail: Fail): EventRateLimitConfiguration {
  if (!isPlainObject(document)) throw fail('', `expected a ${apiVersions[0]} Configuration, got ${describe(document)}`);
  // Field names are case-sensitive in Kubernetes' decoders.
  if (typeof document.apiVersion !== 'string' || document.apiVersion === '')
    throw fail('apiVersion', `missing: expected one of ${apiVersions.join(', ')}`);
  if (!apiVersions.includes(document.apiVersion))
    throw fail('apiVersion', `unknown version ${JSON.stringify(document.apiVersion)}: expected one of ${apiVersions.join(', ')}`);
  if (document.kind !== 'Configuration') throw fail('kind', `expected "Configuration", got ${describe(document.kind)}`);
  const limits = document.limits;
  if (limits === undefined || limits === null) return { limits: undefined };
  if (!Array.isArray(limits)) throw fail('limits', `expected a list of limits, got ${describe(limits)}`);
  return { limits: limits.map((entry, index) => decodeLimit(entry, `limits[${index}]`, fail)) };
}

function decodeLimit(entry: unknown, at: string, fail: Fail): Limit {
  if (entry === null) return { type: '', qps: 0, burst: 0, cacheSize: 0 };
  if (!isPlainObject(entry)) throw fail(at, `expected a limit, got ${describe(entry)}`);
  const type = entry.type;
  if (type !== undefined && type !== null && typeof type !== 'string') throw fail(`${at}.type`, `expected a string, got ${describe(type)}`);
  const int32 = (field: 'qps' | 'burst' | 'cacheSize'): number => {
    const value = entry[field];
    if (value === undefined || value === null) return 0;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < -(2 ** 31) || value >= 2 ** 31)
      throw fail(`${at}.${field}`, `expected a 32-bit integer, got ${describe(value)}`);
    return value;
  };
  return { type: type ?? '', qps: int32('qps'), burst: int32('burst'), cacheSize: int32('cacheSize') };
}

/** ValidateConfiguration, each field.Error as its Error() prints it. */
export function validateConfiguration(configuration: EventRateLimitConfiguration): string[] {
  const errors: string[] = [];
  const limits = configuration.limits ?? [];
  // json.Marshal of the slice: a nil one is null.
  if (limits.length === 0) errors.push(`limits: Invalid value: ${configuration.limits === undefined ? 'null' : '[]'}: must not be empty`);
  limits.forEach((limit, index) => {
    const at = `limits[${index}]`;
    if (!limitTypes.includes(limit.type)) {
      // A LimitType is not a plain string to the error printer, so it is JSON-marshalled.
      const supported = limitTypes.map((t) => JSON.stringify(t)).join(', ');
      errors.push(`${at}.type: Unsupported value: ${goJsonString(limit.type)}: supported values: ${supported}`);
    }
    if (limit.burst <= 0) errors.push(`${at}.burst: Invalid value: ${limit.burst}: must be positive`);
    if (limit.qps <= 0) errors.push(`${at}.qps: Invalid value: ${limit.qps}: must be positive`);
    if (limit.type !== LimitType.Server && limit.cacheSize < 0)
      errors.push(`${at}.cacheSize: Invalid value: ${limit.cacheSize}: must not be negative`);
  });
  return errors;
}

/** encoding/json's string: JSON's escapes plus Go's for <, >, & and the two line separators. */
function goJsonString(value: string): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null || value === undefined) return 'nothing';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}
