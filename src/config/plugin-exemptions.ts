// --plugin-exemptions-file: our own file, beside kube-apiserver's AdmissionConfiguration (whose
// sections stay upstream's exact formats), saying who and where each plugin does not act. A
// PluginExemptions object (admission-chain.io/v1alpha1), decoded strictly: unknown fields, unknown
// plugins, a plugin named twice, a rule that exempts nothing and a selector that would exempt every
// namespace are errors naming the file, the field and the plugin; a plugin that is not enabled is
// reported and ignored, as the AdmissionConfiguration's sections for it are.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { ExemptionRules } from '../admission/exemptions.ts';
import { decodeLabelSelector, type LabelSelector, selectsEverything } from '../api/label-selector.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../api/label-validation.ts';
import { isPlainObject } from '../util/plain-object.ts';

export const pluginExemptionsApiVersion = 'admission-chain.io/v1alpha1';
export const pluginExemptionsKind = 'PluginExemptions';

/** Shared by every command that takes the flag. */
export const pluginExemptionsHelp = `a ${pluginExemptionsKind} file (${pluginExemptionsApiVersion}): per plugin, the namespaces, namespace label selectors, users, groups and service accounts it does not act on`;

export class PluginExemptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginExemptionsError';
  }
}

const ruleFields = ['namespaces', 'namespaceSelectors', 'users', 'groups', 'serviceAccounts'] as const;

export interface LoadedPluginExemptions {
  /** The enabled plugins' rules, by plugin name. */
  readonly rules: ReadonlyMap<string, ExemptionRules>;
  /** One line per entry for a plugin that is not enabled (ignored). */
  readonly warnings: readonly string[];
}

/**
 * Decodes the file's text: every plugin named must be one of `knownPlugins`. Returns every entry's
 * rules, enabled or not (loadPluginExemptions sorts them). Throws PluginExemptionsError.
 */
export function decodePluginExemptions(text: string, file: string, knownPlugins: readonly string[]): Map<string, ExemptionRules> {
  const fail = (detail: string) => new PluginExemptionsError(`plugin exemptions ${file}: ${detail}`);
  const documents = parseAllDocuments(text, { version: '1.1', uniqueKeys: true });
  const list = Array.isArray(documents) ? documents : [documents];
  if (list.length !== 1) throw fail(`expected one ${pluginExemptionsKind} document, found ${list.length}`);
  const parsed = list[0]!;
  const error = parsed.errors[0];
  if (error !== undefined)
    throw fail(`${error.code === 'DUPLICATE_KEY' ? 'strict decoding error: duplicate field: ' : ''}${error.message.split('\n')[0]}`);
  const document = parsed.toJS({ maxAliasCount: 100 }) as unknown;

  if (!isPlainObject(document)) throw fail(`expected a ${pluginExemptionsKind} object`);
  const { apiVersion, kind } = document;
  if (typeof apiVersion !== 'string' || apiVersion === '')
    throw fail(`Object 'apiVersion' is missing: expected ${pluginExemptionsApiVersion} ${pluginExemptionsKind}`);
  if (typeof kind !== 'string' || kind === '') throw fail(`Object 'Kind' is missing: expected ${pluginExemptionsKind}`);
  if (apiVersion !== pluginExemptionsApiVersion || kind !== pluginExemptionsKind)
    throw fail(
      `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)}: expected ${pluginExemptionsApiVersion} ${pluginExemptionsKind}`,
    );
  for (const key of Object.keys(document)) {
    if (!['apiVersion', 'kind', 'plugins'].includes(key)) throw fail(`strict decoding error: unknown field ${JSON.stringify(key)}`);
  }
  const entries = document.plugins ?? [];
  if (!Array.isArray(entries)) throw fail('plugins: expected a list');

  const rules = new Map<string, ExemptionRules>();
  for (const [index, entry] of entries.entries()) {
    const at = `plugins[${index}]`;
    if (!isPlainObject(entry)) throw fail(`${at}: expected an object with name and the rules`);
    const name = entry.name;
    if (typeof name !== 'string' || name === '') throw fail(`${at}.name: Required value: the plugin's name`);
    const of = ` (${name})`;
    if (!knownPlugins.includes(name))
      throw fail(`${at}.name: ${JSON.stringify(name)} is not a plugin admission-chain implements (one of ${knownPlugins.join(', ')})`);
    if (rules.has(name)) throw fail(`${at}.name: ${name} is exempted again: give each plugin one entry`);
    for (const key of Object.keys(entry)) {
      if (key !== 'name' && !(ruleFields as readonly string[]).includes(key))
        throw fail(`strict decoding error: unknown field ${JSON.stringify(`${at}.${key}`)}${of}`);
    }
    const strings = (field: string, check: (value: string) => string | undefined): string[] => {
      const value = entry[field] ?? [];
      if (!Array.isArray(value)) throw fail(`${at}.${field}${of}: expected a list`);
      return value.map((item, i) => {
        if (typeof item !== 'string' || item === '') throw fail(`${at}.${field}[${i}]${of}: expected a non-empty string`);
        const problem = check(item);
        if (problem !== undefined) throw fail(`${at}.${field}[${i}]${of}: Invalid value: ${JSON.stringify(item)}: ${problem}`);
        return item;
      });
    };
    const rawSelectors = entry.namespaceSelectors ?? [];
    if (!Array.isArray(rawSelectors)) throw fail(`${at}.namespaceSelectors${of}: expected a list of label selectors`);
    const namespaceSelectors = rawSelectors.map((raw, i): LabelSelector => {
      const field = `${at}.namespaceSelectors[${i}]`;
      const selector = decodeLabelSelector(raw);
      if ('detail' in selector) throw fail(`${field}${selector.field === '' ? '' : `.${selector.field}`}${of}: ${selector.detail}`);
      if (selectsEverything(selector))
        throw fail(`${field}${of}: an empty selector would exempt every namespace: give matchLabels or matchExpressions`);
      return selector;
    });
    const rule: ExemptionRules = {
      namespaces: strings('namespaces', (value) => (isDNS1123Label(value) ? undefined : 'not a namespace name (a DNS-1123 label)')),
      namespaceSelectors,
      users: strings('users', () => undefined),
      groups: strings('groups', () => undefined),
      serviceAccounts: strings('serviceAccounts', serviceAccountProblem),
    };
    if (ruleFields.every((field) => rule[field].length === 0))
      throw fail(`${at}${of}: exempts nothing: give namespaces, namespaceSelectors, users, groups or serviceAccounts`);
    rules.set(name, rule);
  }
  return rules;
}

/** "namespace/name", as the service account's username system:serviceaccount:namespace:name has them. */
function serviceAccountProblem(value: string): string | undefined {
  const parts = value.split('/');
  if (parts.length !== 2) return 'expected namespace/name';
  const [namespace, name] = parts as [string, string];
  if (!isDNS1123Label(namespace)) return `namespace ${JSON.stringify(namespace)} is not a namespace name (a DNS-1123 label)`;
  const errors = isDNS1123Subdomain(name);
  if (errors.length > 0) return `name ${JSON.stringify(name)}: ${errors.join('; ')}`;
  return undefined;
}

/** Reads and decodes the file; the rules of plugins that are not enabled are dropped with a warning. */
export async function loadPluginExemptions(
  file: string,
  enabledPlugins: readonly string[],
  knownPlugins: readonly string[],
): Promise<LoadedPluginExemptions> {
  const absolute = resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    throw new PluginExemptionsError(`unable to read plugin exemptions from ${JSON.stringify(file)}: ${(error as Error).message}`);
  }
  const decoded = decodePluginExemptions(text, absolute, knownPlugins);
  const rules = new Map<string, ExemptionRules>();
  const warnings: string[] = [];
  for (const [name, rule] of decoded) {
    if (enabledPlugins.includes(name)) rules.set(name, rule);
    else warnings.push(`plugin exemptions ${absolute}: ${name} is not enabled: its exemptions are ignored`);
  }
  return { rules, warnings };
}

/** The exemptions for `--plugin-exemptions-file`, or none when the flag is not given. */
export async function loadPluginExemptionsFlag(
  file: string | undefined,
  enabledPlugins: readonly string[],
  knownPlugins: readonly string[],
): Promise<LoadedPluginExemptions> {
  if (file === undefined) return { rules: new Map(), warnings: [] };
  return loadPluginExemptions(file, enabledPlugins, knownPlugins);
}
