// PodNodeSelector's configuration (upstream readConfig): an unversioned document whose
// podNodeSelectorPluginConfig maps clusterDefaultNodeSelector, and any namespace name, to a label
// selector — the default selector for namespaces without the annotation, and each namespace's
// whitelist. Upstream parses the selectors on every request and fails each one when a selector is
// bad; here they are parsed once, at start-up, and a bad one stops the webhook.

import { convertSelectorToLabelsMap, type LabelSet, SelectorError } from '../../api/labels.ts';
import { type PluginConfiguration, PluginConfigurationError } from '../../ports/plugin-configuration.ts';
import { foldName } from '../../util/go-json-reader.ts';
import { isPlainObject } from '../../util/plain-object.ts';

const clusterDefaultNodeSelectorKey = 'clusterDefaultNodeSelector';
const configKey = 'podNodeSelectorPluginConfig';

export interface PodNodeSelectorConfiguration {
  /** The selector for namespaces without the node-selector annotation. */
  readonly clusterDefaultNodeSelector: LabelSet;
  /** Per namespace: the labels its pods' node selectors may use (an empty set allows all). */
  readonly whitelists: ReadonlyMap<string, LabelSet>;
}

const emptyConfiguration: PodNodeSelectorConfiguration = { clusterDefaultNodeSelector: new Map(), whitelists: new Map() };

export function parseConfiguration(configuration: PluginConfiguration | undefined, pluginName: string): PodNodeSelectorConfiguration {
  if (configuration === undefined) return emptyConfiguration;
  const fail = (field: string, detail: string) => new PluginConfigurationError(configuration, pluginName, field, detail);
  // Upstream decodes documents until one decodes; the first document with content is that one here.
  const document = configuration.documents.find((d) => d !== null && d !== undefined);
  if (document === undefined) return emptyConfiguration;
  if (!isPlainObject(document)) throw fail('', `expected an object with ${configKey}, got ${describe(document)}`);

  // Go's encoding/json matches the field name case-insensitively; several spellings merge in order.
  const selectors = new Map<string, string>();
  for (const [key, value] of Object.entries(document)) {
    if (foldName(key) !== foldName(configKey)) continue;
    if (value === null) continue;
    if (!isPlainObject(value)) throw fail(key, `expected a map of label selectors, got ${describe(value)}`);
    for (const [name, selector] of Object.entries(value)) {
      // A null value decodes as "".
      if (selector !== null && typeof selector !== 'string')
        throw fail(`${key}.${name}`, `expected a label selector string, got ${describe(selector)}`);
      selectors.set(name, selector ?? '');
    }
  }

  let clusterDefaultNodeSelector: LabelSet = new Map();
  const whitelists = new Map<string, LabelSet>();
  for (const [name, selector] of selectors) {
    let labels: LabelSet;
    try {
      labels = convertSelectorToLabelsMap(selector);
    } catch (error) {
      if (error instanceof SelectorError) throw fail(`${configKey}.${name}`, error.message);
      throw error;
    }
    if (name === clusterDefaultNodeSelectorKey) clusterDefaultNodeSelector = labels;
    // The default's key is also looked up as a namespace's whitelist, as upstream's single map does.
    whitelists.set(name, labels);
  }
  return { clusterDefaultNodeSelector, whitelists };
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}
