// The one ordered list of plugins (upstream AllOrderedPlugins in pkg/kubeapiserver/options/plugins.go,
// relative order kept): LimitPodHardAntiAffinityTopology, ServiceAccount, AlwaysPullImages,
// ImagePolicyWebhook, PodNodeSelector, PodTolerationRestriction, EventRateLimit, ExtendedResourceToleration, StorageObjectInUseProtection,
// OwnerReferencesPermissionEnforcement, RuntimeClass, DenyServiceExternalIPs, PodTopologyLabels. Flags
// choose which of these run, never their order.
import type { PluginDefinition } from '../admission/plugin.ts';
import { definition as alwaysPullImages } from './alwayspullimages/index.ts';
import { definition as limitPodHardAntiAffinityTopology } from './antiaffinity/index.ts';
import { definition as denyServiceExternalIPs } from './denyserviceexternalips/index.ts';
import { definition as eventRateLimit } from './eventratelimit/index.ts';
import { definition as extendedResourceToleration } from './extendedresourcetoleration/index.ts';
import { definition as imagePolicyWebhook } from './imagepolicywebhook/index.ts';
import { definition as ownerReferencesPermissionEnforcement } from './ownerreferences/index.ts';
import { definition as podNodeSelector } from './podnodeselector/index.ts';
import { definition as podTolerationRestriction } from './podtolerationrestriction/index.ts';
import { definition as podTopologyLabels } from './podtopologylabels/index.ts';
import { definition as runtimeClass } from './runtimeclass/index.ts';
import { definition as serviceAccount } from './serviceaccount/index.ts';
import { definition as storageObjectInUseProtection } from './storageobjectinuseprotection/index.ts';

export const orderedPlugins: readonly PluginDefinition[] = [
  limitPodHardAntiAffinityTopology,
  serviceAccount,
  alwaysPullImages,
  imagePolicyWebhook,
  podNodeSelector,
  podTolerationRestriction,
  eventRateLimit,
  extendedResourceToleration,
  storageObjectInUseProtection,
  ownerReferencesPermissionEnforcement,
  runtimeClass,
  denyServiceExternalIPs,
  podTopologyLabels,
];

/**
 * On by default: the plugins managed clusters cannot enable and that change nothing a workload
 * relies on. The scheduling and Service plugins stay off until asked for: they move pods or reject
 * workloads that run today.
 */
export const defaultEnabledPlugins: readonly string[] = ['AlwaysPullImages', 'OwnerReferencesPermissionEnforcement'];
