// A plugin's section of kube-apiserver's AdmissionConfiguration file (--admission-control-config-file),
// as upstream's ConfigProvider.ConfigFor hands it to the plugin's factory: the plugin decodes and
// checks it itself, at start-up, so a bad configuration stops the webhook before it serves.

export interface PluginConfiguration {
  /** Where it came from, for error messages: the file and the entry ("admission.yaml plugins[0].configuration"). */
  readonly source: string;
  /** The decoded YAML/JSON documents, in order (an inline configuration is one document). */
  readonly documents: readonly unknown[];
}

export interface PluginConfigurations {
  /** The configuration for this plugin, or undefined when the file has none for it (upstream: a nil reader). */
  for(pluginName: string): PluginConfiguration | undefined;
}

/** A configuration a plugin cannot use: names the source, the plugin and the field. */
export class PluginConfigurationError extends Error {
  constructor(configuration: PluginConfiguration, pluginName: string, field: string, detail: string) {
    super(`${configuration.source}: plugin ${pluginName}: ${field === '' ? '' : `${field}: `}${detail}`);
    this.name = 'PluginConfigurationError';
  }
}
