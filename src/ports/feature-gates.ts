// Whether a kube-apiserver feature gate is on in the cluster the webhook serves (upstream reads
// feature.DefaultFeatureGate), for the plugins whose upstream behaviour depends on one. A backend
// answers from the cluster's version; --feature-gates overrides it.
import { type Feature, featureDefault, features, type KubernetesVersion } from '../api/feature-gates.ts';

export interface FeatureGates {
  /** Throws when the backend cannot tell yet (the cluster's version has not been read). */
  enabled(feature: Feature): boolean;
}

/** Gates set by hand (--feature-gates NAME=true|false): they win over the version's defaults. */
export type FeatureGateOverrides = Readonly<Partial<Record<Feature, boolean>>>;

/** The gates of kube-apiserver at this version, with the overrides applied. */
export function featureGatesAt(version: KubernetesVersion, overrides: FeatureGateOverrides = {}): FeatureGates {
  return { enabled: (feature) => overrides[feature] ?? featureDefault(feature, version).enabled };
}

/** The gates when the overrides name every one, so the version need never be read; else undefined. */
export function featureGatesFromOverrides(overrides: FeatureGateOverrides): FeatureGates | undefined {
  if (!features.every((feature) => overrides[feature] !== undefined)) return undefined;
  return { enabled: (feature) => overrides[feature]! };
}
