// Cross-cutting work wraps plugins from outside (upstream metrics.WithControllerMetrics): the
// plugin never knows it is timed.
import type { Attributes, RequestContext } from './attributes.ts';
import type { AdmissionPlugin } from './plugin.ts';
import type { AdmissionMetrics } from '../observability/metrics.ts';

export function instrumentPlugin(plugin: AdmissionPlugin, metrics: AdmissionMetrics): AdmissionPlugin {
  const wrap = (type: 'admit' | 'validate', step: NonNullable<AdmissionPlugin['admit']>) =>
    async (attributes: Attributes, context: RequestContext): Promise<void> => {
      const start = process.hrtime.bigint();
      let rejected = false;
      const observed: RequestContext = {
        signal: context.signal,
        warn: context.warn,
        annotate: (key, value) => {
          if (key === 'path') metrics.pluginPaths.inc({ name: plugin.name, path: value });
          context.annotate(key, value);
        },
      };
      try {
        await step.call(plugin, attributes, observed);
      } catch (error) {
        rejected = true;
        throw error;
      } finally {
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        metrics.controllerDuration.observe({ name: plugin.name, type, operation: attributes.operation, rejected: String(rejected) }, seconds);
      }
    };
  const wrapped: AdmissionPlugin = {
    name: plugin.name,
    handles: (operation) => plugin.handles(operation),
  };
  if (plugin.admit) wrapped.admit = wrap('admit', plugin.admit);
  if (plugin.validate) wrapped.validate = wrap('validate', plugin.validate);
  return wrapped;
}
