// The one ordered list of plugins (upstream AllOrderedPlugins, relative order kept):
// ServiceAccount, AlwaysPullImages, StorageObjectInUseProtection, OwnerReferencesPermissionEnforcement,
// RuntimeClass. Flags choose which of these run, never their order.
import type { PluginDefinition } from '../admission/plugin.ts';
import { definition as alwaysPullImages } from './alwayspullimages/index.ts';
import { definition as ownerReferencesPermissionEnforcement } from './ownerreferences/index.ts';
import { definition as runtimeClass } from './runtimeclass/index.ts';
import { definition as serviceAccount } from './serviceaccount/index.ts';
import { definition as storageObjectInUseProtection } from './storageobjectinuseprotection/index.ts';

export const orderedPlugins: readonly PluginDefinition[] = [
  serviceAccount,
  alwaysPullImages,
  storageObjectInUseProtection,
  ownerReferencesPermissionEnforcement,
  runtimeClass,
];

/** On by default: the plugins managed clusters cannot enable (the others are on in-tree there). */
export const defaultEnabledPlugins: readonly string[] = ['AlwaysPullImages', 'OwnerReferencesPermissionEnforcement'];
