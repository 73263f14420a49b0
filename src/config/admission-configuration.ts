// kube-apiserver's --admission-control-config-file (upstream k8s.io/apiserver pkg/admission/config.go,
// ReadAdmissionConfiguration and ConfigFor): an AdmissionConfiguration (apiserver.config.k8s.io/v1 or
// apiserver.k8s.io/v1alpha1, decoded strictly) whose plugins each carry a configuration inline or by
// path (relative paths resolved against the file's folder), or a legacy file that is PodNodeSelector's
// own configuration. Someone moving from a self-managed cluster passes the same file. Unlike upstream,
// every problem is found at start-up: the file, a path that cannot be read, a section that does not
// parse; and sections for plugins this webhook does not run are reported, not silently dropped.
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { PluginConfiguration, PluginConfigurations } from '../ports/plugin-configuration.ts';
import { isPlainObject } from '../util/plain-object.ts';

const admissionConfigurationVersions = ['apiserver.config.k8s.io/v1', 'apiserver.k8s.io/v1alpha1'];
/** Plugins that read the whole file when it is not an AdmissionConfiguration (upstream's legacy format). */
const legacyPlugins = { imagePolicy: 'ImagePolicyWebhook', podNodeSelectorPluginConfig: 'PodNodeSelector' } as const;

export class AdmissionConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdmissionConfigurationError';
  }
}

export interface AdmissionPluginEntry {
  readonly name: string;
  /** Absolute, resolved against the configuration file's folder. */
  readonly path?: string;
  /** The inline configuration, as decoded YAML/JSON. */
  readonly configuration?: unknown;
}

export interface AdmissionConfiguration {
  readonly file: string;
  readonly plugins: readonly AdmissionPluginEntry[];
  /** Legacy-format top-level keys found, when the file is not an AdmissionConfiguration. */
  readonly legacyKeys: readonly (keyof typeof legacyPlugins)[];
}

/**
 * Decodes the file's text as ReadAdmissionConfiguration does; `enabledPlugins` decides which plugins
 * a legacy file configures (upstream: the plugins being enabled). Throws AdmissionConfigurationError.
 */
export function decodeAdmissionConfiguration(text: string, file: string, enabledPlugins: readonly string[]): AdmissionConfiguration {
  const fail = (detail: string) => new AdmissionConfigurationError(`admission configuration ${file}: ${detail}`);
  const document = parseYaml(text, fail)[0];

  const apiVersion = isPlainObject(document) ? document.apiVersion : undefined;
  const kind = isPlainObject(document) ? document.kind : undefined;
  const isAdmissionConfiguration =
    typeof apiVersion === 'string' && admissionConfigurationVersions.includes(apiVersion) && kind === 'AdmissionConfiguration';
  if (!isAdmissionConfiguration) {
    // Only a missing or unknown apiVersion/kind lets the file be read as a legacy one.
    const legacyKeys = isPlainObject(document)
      ? (Object.keys(legacyPlugins) as (keyof typeof legacyPlugins)[]).filter((key) => Object.hasOwn(document, key))
      : [];
    if (legacyKeys.length === 0) {
      if (!isPlainObject(document)) throw fail('expected an AdmissionConfiguration object');
      if (typeof apiVersion !== 'string' || apiVersion === '')
        throw fail(
          "Object 'apiVersion' is missing: expected apiserver.config.k8s.io/v1 (or apiserver.k8s.io/v1alpha1) AdmissionConfiguration",
        );
      if (typeof kind !== 'string' || kind === '') throw fail("Object 'Kind' is missing: expected AdmissionConfiguration");
      throw fail(
        `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)}: expected apiserver.config.k8s.io/v1 (or apiserver.k8s.io/v1alpha1) AdmissionConfiguration`,
      );
    }
    const plugins = legacyKeys.map((key) => legacyPlugins[key]).filter((name) => enabledPlugins.includes(name));
    return { file, plugins: plugins.map((name) => ({ name, path: file })), legacyKeys };
  }

  // Strict decoding: unknown fields are errors (duplicate ones already failed in parseYaml).
  const configuration = document as Record<string, unknown>;
  for (const key of Object.keys(configuration)) {
    if (!['apiVersion', 'kind', 'plugins'].includes(key)) throw fail(`strict decoding error: unknown field ${JSON.stringify(key)}`);
  }
  const entries = configuration.plugins;
  if (entries !== undefined && entries !== null && !Array.isArray(entries)) throw fail('plugins: expected a list');
  const plugins = ((entries ?? []) as unknown[]).map((entry, index): AdmissionPluginEntry => {
    const at = `plugins[${index}]`;
    if (!isPlainObject(entry)) throw fail(`${at}: expected an object with name, and path or configuration`);
    for (const key of Object.keys(entry)) {
      if (!['name', 'path', 'configuration'].includes(key))
        throw fail(`strict decoding error: unknown field ${JSON.stringify(`${at}.${key}`)}`);
    }
    const name = optionalString(entry.name, `${at}.name`, fail);
    const path = optionalString(entry.path, `${at}.path`, fail);
    const result: { name: string; path?: string; configuration?: unknown } = { name };
    if (path !== '') result.path = isAbsolute(path) ? path : resolve(dirname(file), path);
    if (entry.configuration !== undefined && entry.configuration !== null) result.configuration = entry.configuration;
    return result;
  });
  return { file, plugins, legacyKeys: [] };
}

export interface LoadedAdmissionConfiguration {
  readonly configurations: PluginConfigurations;
  /** One line per configuration this webhook ignores (plugins it does not run, repeated entries). */
  readonly warnings: readonly string[];
}

export interface LoadOptions {
  /**
   * Where a path the configuration names is found here (`migrate`: a path inside kube-apiserver's
   * container, mapped through its volumes to the host's copy). Default: where it says.
   */
  readonly locate?: (path: string) => string;
}

/** Reads the file and, for each enabled plugin, its section (upstream ConfigFor: the first entry for it). */
export async function loadAdmissionConfiguration(
  file: string,
  enabledPlugins: readonly string[],
  knownPlugins: readonly string[],
  options: LoadOptions = {},
): Promise<LoadedAdmissionConfiguration> {
  const locate = options.locate ?? ((path: string) => path);
  // Paths inside the file are resolved against where it says it is, then located.
  const original = resolve(file);
  const absolute = locate(original);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    throw new AdmissionConfigurationError(
      `unable to read admission control configuration from ${JSON.stringify(file)}: ${(error as Error).message}`,
    );
  }
  const decoded = decodeAdmissionConfiguration(text, original, enabledPlugins);
  const warnings: string[] = [];
  const sections = new Map<string, PluginConfiguration>();
  const notRun = (name: string) => (knownPlugins.includes(name) ? 'which is not enabled' : 'which admission-chain does not implement');

  for (const key of decoded.legacyKeys) {
    const name = legacyPlugins[key];
    if (!enabledPlugins.includes(name))
      warnings.push(`admission configuration ${absolute}: ${key} configures ${name}, ${notRun(name)}: ignored`);
  }
  for (const [index, entry] of decoded.plugins.entries()) {
    const at = decoded.legacyKeys.length > 0 ? `legacy ${legacyKeyOf(entry.name)}` : `plugins[${index}]`;
    if (!enabledPlugins.includes(entry.name)) {
      warnings.push(
        `admission configuration ${absolute}: ${at} configures ${entry.name === '' ? 'a plugin with no name' : entry.name}, ${notRun(entry.name)}: ignored`,
      );
      continue;
    }
    if (sections.has(entry.name)) {
      warnings.push(`admission configuration ${absolute}: ${at} configures ${entry.name} again: ignored (the first entry is used)`);
      continue;
    }
    const section = await sectionOf(entry.path === undefined ? entry : { ...entry, path: locate(entry.path) }, at, absolute, text);
    if (section !== undefined) sections.set(entry.name, section);
  }
  return { configurations: { for: (name) => sections.get(name) }, warnings };
}

async function sectionOf(
  entry: AdmissionPluginEntry,
  at: string,
  file: string,
  fileText: string,
): Promise<PluginConfiguration | undefined> {
  if (entry.configuration !== undefined) return { source: `${file} ${at}.configuration`, documents: [entry.configuration] };
  if (entry.path === undefined) return undefined;
  const source = entry.path === file ? `${file} (${at})` : `${entry.path} (${at}.path in ${file})`;
  let text: string;
  try {
    text = entry.path === file ? fileText : await readFile(entry.path, 'utf8');
  } catch (error) {
    throw new AdmissionConfigurationError(`couldn't open admission plugin configuration ${source}: ${(error as Error).message}`);
  }
  const fail = (detail: string) => new AdmissionConfigurationError(`${source}: ${detail}`);
  return { source, documents: parseYaml(text, fail) };
}

function legacyKeyOf(pluginName: string): string {
  return Object.entries(legacyPlugins).find(([, name]) => name === pluginName)?.[0] ?? pluginName;
}

/**
 * YAML (or JSON) documents as Kubernetes' decoders read them: YAML 1.1 scalars (yes/no are booleans),
 * duplicate keys refused, as the strict decoder refuses duplicate fields.
 */
function parseYaml(text: string, fail: (detail: string) => Error): unknown[] {
  const documents = parseAllDocuments(text, { version: '1.1', uniqueKeys: true });
  const list = Array.isArray(documents) ? documents : [documents];
  return list.map((document) => {
    const error = document.errors[0];
    if (error !== undefined) {
      const duplicate = error.code === 'DUPLICATE_KEY' ? 'strict decoding error: duplicate field: ' : '';
      throw fail(`${duplicate}${error.message.split('\n')[0]}`);
    }
    return document.toJS({ maxAliasCount: 100 }) as unknown;
  });
}

function optionalString(value: unknown, field: string, fail: (detail: string) => Error): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw fail(`${field}: expected a string`);
  return value;
}

/** The configuration for `--admission-control-config-file`, or none when the flag is not given. */
export async function loadAdmissionConfigurationFlag(
  file: string | undefined,
  enabledPlugins: readonly string[],
  knownPlugins: readonly string[],
): Promise<LoadedAdmissionConfiguration> {
  if (file === undefined) return { configurations: { for: () => undefined }, warnings: [] };
  return loadAdmissionConfiguration(file, enabledPlugins, knownPlugins);
}
