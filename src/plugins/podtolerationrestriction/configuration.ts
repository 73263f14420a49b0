// PodTolerationRestriction's configuration (upstream loadConfiguration): a
// podtolerationrestriction.admission.k8s.io/v1alpha1 Configuration with cluster-wide default
// tolerations and whitelist, each checked as pod tolerations are; none at all when absent. v1alpha1 is
// the only version kube-apiserver registers (its install.go), so a file we accept is one it accepts.

import type { Toleration } from '../../api/core.ts';
import { fieldsOf, type TolerationFields, tolerationJson } from '../../api/tolerations/toleration.ts';
import { validateTolerations } from '../../api/tolerations/validation.ts';
import { type PluginConfiguration, PluginConfigurationError } from '../../ports/plugin-configuration.ts';
import { isPlainObject } from '../../util/plain-object.ts';

const group = 'podtolerationrestriction.admission.k8s.io';
const apiVersions = [`${group}/v1alpha1`];

export interface PodTolerationRestrictionConfiguration {
  /** Cluster-wide default tolerations, as a pod would carry them. */
  readonly default: readonly Toleration[];
  readonly whitelist: readonly Toleration[];
}

const emptyConfiguration: PodTolerationRestrictionConfiguration = { default: [], whitelist: [] };

export function parseConfiguration(
  configuration: PluginConfiguration | undefined,
  pluginName: string,
): PodTolerationRestrictionConfiguration {
  if (configuration === undefined) return emptyConfiguration;
  const fail = (field: string, detail: string) => new PluginConfigurationError(configuration, pluginName, field, detail);
  const document = configuration.documents[0];
  if (!isPlainObject(document)) throw fail('', `expected a ${apiVersions[0]} Configuration, got ${describe(document)}`);
  // Field names are case-sensitive in Kubernetes' decoders; unknown fields are ignored.
  if (typeof document.apiVersion !== 'string' || document.apiVersion === '')
    throw fail('apiVersion', `missing: expected one of ${apiVersions.join(', ')}`);
  if (!apiVersions.includes(document.apiVersion))
    throw fail('apiVersion', `unknown version ${JSON.stringify(document.apiVersion)}: expected one of ${apiVersions.join(', ')}`);
  if (document.kind !== 'Configuration') throw fail('kind', `expected "Configuration", got ${describe(document.kind)}`);

  const tolerations = (field: 'default' | 'whitelist'): TolerationFields[] => {
    const list = document[field];
    if (list === undefined || list === null) return [];
    if (!Array.isArray(list)) throw fail(field, `expected a list of tolerations, got ${describe(list)}`);
    return list.map((entry, index) => decodeToleration(entry, `${field}[${index}]`, fail));
  };
  const defaults = tolerations('default');
  const whitelist = tolerations('whitelist');
  const errors = [...validateTolerations(defaults, 'default'), ...validateTolerations(whitelist, 'whitelist')];
  // Each message starts with its field: "default[0].operator: Invalid value: ...".
  if (errors.length > 0) throw fail('', errors.map((e) => e.message).join('; '));
  return { default: defaults.map(tolerationJson), whitelist: whitelist.map(tolerationJson) };
}

function decodeToleration(entry: unknown, at: string, fail: (field: string, detail: string) => Error): TolerationFields {
  if (entry === null) return fieldsOf({});
  if (!isPlainObject(entry)) throw fail(at, `expected a toleration, got ${describe(entry)}`);
  for (const field of ['key', 'operator', 'value', 'effect'] as const) {
    const value = entry[field];
    if (value !== undefined && value !== null && typeof value !== 'string')
      throw fail(`${at}.${field}`, `expected a string, got ${describe(value)}`);
  }
  const seconds = entry.tolerationSeconds;
  if (seconds !== undefined && seconds !== null && !Number.isSafeInteger(seconds))
    throw fail(`${at}.tolerationSeconds`, `expected an integer, got ${describe(seconds)}`);
  return fieldsOf(entry as Toleration);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null || value === undefined) return 'nothing';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}
