// kube-apiserver feature gates a plugin's behaviour depends on, with each gate's default per
// Kubernetes version (upstream pkg/features/kube_features.go), so the webhook decides as the
// cluster's own kube-apiserver would. Only the gates a plugin here reads are listed.

export const Feature = {
  /** StorageObjectInUseProtection protects VolumeAttributesClasses only with this gate on. */
  VolumeAttributesClass: 'VolumeAttributesClass',
  /** PodTopologyLabels copies a node's topology labels only with this gate on. */
  PodTopologyLabelsAdmission: 'PodTopologyLabelsAdmission',
} as const;
export type Feature = (typeof Feature)[keyof typeof Feature];

export const features: readonly Feature[] = Object.values(Feature);

export function isFeature(name: string): name is Feature {
  return (features as readonly string[]).includes(name);
}

/** A Kubernetes minor release, the granularity feature defaults change at. */
export interface KubernetesVersion {
  readonly major: number;
  readonly minor: number;
}

export function formatVersion({ major, minor }: KubernetesVersion): string {
  return `${major}.${minor}`;
}

function atLeast(version: KubernetesVersion, since: KubernetesVersion): boolean {
  return version.major !== since.major ? version.major > since.major : version.minor >= since.minor;
}

/** From this release on, the gate defaults to `enabled`; a locked gate cannot be set otherwise. */
interface Stage {
  readonly since: KubernetesVersion;
  readonly enabled: boolean;
  readonly locked: boolean;
}

const stage = (minor: number, enabled: boolean, locked = false): Stage => ({ since: { major: 1, minor }, enabled, locked });

const stages: Record<Feature, readonly Stage[]> = {
  // Alpha in 1.29, beta (still off) in 1.31, GA and on in 1.34, locked on in 1.36.
  VolumeAttributesClass: [stage(29, false), stage(31, false), stage(34, true), stage(36, true, true)],
  // Alpha in 1.33, beta and on in 1.35.
  PodTopologyLabelsAdmission: [stage(33, false), stage(35, true)],
};

export interface FeatureDefault {
  readonly enabled: boolean;
  /** kube-apiserver of this version refuses any other value. */
  readonly locked: boolean;
}

/** The gate's default in kube-apiserver of this version; before the gate existed, off. */
export function featureDefault(feature: Feature, version: KubernetesVersion): FeatureDefault {
  let current: FeatureDefault = { enabled: false, locked: false };
  for (const s of stages[feature]) if (atLeast(version, s.since)) current = { enabled: s.enabled, locked: s.locked };
  return current;
}

/** What `/version` answers (apimachinery's version.Info), the fields read here. */
export interface ServerVersionInfo {
  major?: string;
  minor?: string;
  emulationMajor?: string;
  emulationMinor?: string;
  gitVersion?: string;
}

/**
 * The release whose feature defaults the server follows: its emulation version when it reports one
 * (defaults follow `--emulated-version`), else its own. Providers append to the minor ("29+" on EKS
 * and GKE), so only leading digits count; gitVersion ("v1.29.3-gke.1") is the last resort.
 */
export function featureVersionOf(info: ServerVersionInfo): KubernetesVersion {
  const version = releaseOf(info.emulationMajor, info.emulationMinor) ?? releaseOf(info.major, info.minor) ?? gitRelease(info.gitVersion);
  if (version === undefined) throw new Error(`cannot tell the Kubernetes version from /version: ${JSON.stringify(info)}`);
  return version;
}

function releaseOf(major: string | undefined, minor: string | undefined): KubernetesVersion | undefined {
  const majorDigits = /^\d+/.exec(major ?? '');
  const minorDigits = /^\d+/.exec(minor ?? '');
  if (majorDigits === null || minorDigits === null) return undefined;
  return { major: Number(majorDigits[0]), minor: Number(minorDigits[0]) };
}

function gitRelease(gitVersion: string | undefined): KubernetesVersion | undefined {
  const match = /^v?(\d+)\.(\d+)/.exec(gitVersion ?? '');
  return match === null ? undefined : { major: Number(match[1]), minor: Number(match[2]) };
}
