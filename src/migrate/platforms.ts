// What each managed platform documents about the admission plugins admission-chain runs: EKS and AKS
// publish the plugins they enable in kube-apiserver, which users cannot change; GKE publishes no such
// list, only pages that name a plugin. The README's plugin table and `migrate --target` both follow
// from these facts (test/deploy/readme-plugin-table.test.ts holds the README to them).
import { upstreamDefaultOn } from './upstream-plugins.ts';

export const platforms = ['eks', 'gke', 'aks'] as const;
export type Platform = (typeof platforms)[number];

export interface PlatformFacts {
  /** The page the facts come from. */
  readonly source: string;
  /** The platform's published list of enabled plugins (ours among them), when it publishes one. */
  readonly listsEnabled?: readonly string[];
  /** Plugins a page of the platform names, with what it says. */
  readonly documents?: Readonly<Record<string, 'yes' | 'cluster option'>>;
}

export const platformFacts: Readonly<Record<Platform, PlatformFacts>> = {
  eks: {
    source: 'https://docs.aws.amazon.com/eks/latest/userguide/platform-versions.html',
    listsEnabled: ['ServiceAccount', 'ExtendedResourceToleration', 'StorageObjectInUseProtection', 'RuntimeClass'],
  },
  aks: {
    source:
      'https://learn.microsoft.com/en-us/azure/aks/faq#what-kubernetes-admission-controllers-does-aks-support-can-admission-controllers-be-added-or-removed',
    listsEnabled: ['ServiceAccount', 'PodNodeSelector', 'PodTolerationRestriction', 'ExtendedResourceToleration'],
  },
  gke: {
    source: 'https://cloud.google.com/kubernetes-engine/docs/how-to/gpus',
    documents: { ExtendedResourceToleration: 'yes', DenyServiceExternalIPs: 'cluster option' },
  },
};

/** Whether the platform runs the plugin in its own kube-apiserver: 'yes', 'no', 'unknown' or 'cluster option'. */
export function platformRuns(platform: Platform, plugin: string): 'yes' | 'no' | 'unknown' | 'cluster option' {
  const facts = platformFacts[platform];
  if (facts.listsEnabled?.includes(plugin)) return 'yes';
  const documented = facts.documents?.[plugin];
  if (documented !== undefined) return documented;
  // On by default upstream, and no platform documents turning these off.
  if (upstreamDefaultOn.has(plugin)) return 'yes';
  // Off by default upstream: it runs only if the platform turns it on, and a published list says whether it does.
  return facts.listsEnabled !== undefined ? 'no' : 'unknown';
}
