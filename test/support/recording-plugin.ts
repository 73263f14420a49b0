// A plugin that records what the chain asked of it and does what the test tells it to: the
// chain's order, phase and mode rules are proven against it.
import type { Attributes, RequestContext } from '../../src/admission/attributes.ts';
import type { Operation } from '../../src/admission/operation.ts';
import type { AdmissionPlugin } from '../../src/admission/plugin.ts';

export interface RecordingPluginOptions {
  name: string;
  log: string[];
  operations?: Operation[];
  mutate?: (attributes: Attributes, context: RequestContext) => void | Promise<void>;
  check?: (attributes: Attributes, context: RequestContext) => void | Promise<void>;
  mutating?: boolean;
  validating?: boolean;
}

export function recordingPlugin(options: RecordingPluginOptions): AdmissionPlugin {
  const plugin: AdmissionPlugin = {
    name: options.name,
    handles: (operation) => (options.operations ?? ['CREATE', 'UPDATE']).includes(operation),
  };
  if (options.mutating ?? true) {
    plugin.admit = async (attributes, context) => {
      options.log.push(`${options.name}:admit`);
      await options.mutate?.(attributes, context);
    };
  }
  if (options.validating ?? true) {
    plugin.validate = async (attributes, context) => {
      options.log.push(`${options.name}:validate`);
      await options.check?.(attributes, context);
    };
  }
  return plugin;
}
