// Cross-cutting work wraps plugins from outside (upstream metrics.WithControllerMetrics): the
// plugin never knows it is timed.

import type { AdmissionMetrics } from '../observability/metrics.ts';
import type { Attributes, RequestContext } from './attributes.ts';
import type { AdmissionPlugin } from './plugin.ts';

type Step = NonNullable<AdmissionPlugin['admit']>;

export function instrumentPlugin(plugin: AdmissionPlugin, metrics: AdmissionMetrics): AdmissionPlugin {
  const wrap =
    (type: 'admit' | 'validate', step: Step): Step =>
    async (attributes: Attributes, context: RequestContext): Promise<void> => {
      // performance.now(): a double, where hrtime.bigint() allocates a BigInt per reading.
      const start = performance.now();
      const observe = (rejected: boolean) => {
        const seconds = (performance.now() - start) / 1000;
        metrics.controllerDuration.observe(
          { name: plugin.name, type, operation: attributes.operation, rejected: rejected ? 'true' : 'false' },
          seconds,
        );
      };
      // The context passes on whole, its deadline the very object the chain was given; only
      // annotate is wrapped, to count the paths a plugin reports.
      const observed: RequestContext = {
        ...context,
        annotate: (key, value) => {
          if (key === 'path') metrics.pluginPaths.inc({ name: plugin.name, path: value });
          context.annotate(key, value);
        },
      };
      let rejected = true;
      try {
        await step.call(plugin, attributes, observed);
        rejected = false;
      } finally {
        // finally rather than catch-and-throw: the exception travels on as it was thrown.
        observe(rejected);
      }
    };
  const wrapped: AdmissionPlugin = {
    name: plugin.name,
    handles: (operation) => plugin.handles(operation),
    // Where it writes is the plugin's own word: /mutate copies only that.
    ...(plugin.mutates ? { mutates: plugin.mutates } : {}),
  };
  if (plugin.admit) wrapped.admit = wrap('admit', plugin.admit);
  if (plugin.validate) wrapped.validate = wrap('validate', plugin.validate);
  return wrapped;
}
