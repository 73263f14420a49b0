// --feature-gates, as kube-apiserver spells it (NAME=true|false, comma-separated, repeatable): what
// the cluster's kube-apiserver runs with, for when its version's defaults are not what it runs
// (a gate turned on early, or off) or the version cannot be read.
import { features, isFeature } from '../api/feature-gates.ts';
import type { FeatureGateOverrides } from '../ports/feature-gates.ts';
import { splitList } from './plugins.ts';

export function parseFeatureGates(values: string[] | undefined): FeatureGateOverrides {
  const overrides: Record<string, boolean> = {};
  for (const entry of splitList(values)) {
    const separator = entry.indexOf('=');
    const name = separator < 0 ? entry : entry.slice(0, separator).trim();
    const value =
      separator < 0
        ? ''
        : entry
            .slice(separator + 1)
            .trim()
            .toLowerCase();
    if (!isFeature(name)) {
      throw new Error(
        `--feature-gates ${JSON.stringify(entry)}: unrecognized feature gate ${JSON.stringify(name)}; the plugins here read only ${features.join(', ')}`,
      );
    }
    if (value !== 'true' && value !== 'false')
      throw new Error(`--feature-gates ${JSON.stringify(entry)}: expected ${name}=true or ${name}=false`);
    overrides[name] = value === 'true';
  }
  return overrides;
}
