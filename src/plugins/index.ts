// The one ordered list of plugins (upstream AllOrderedPlugins, relative order kept). Flags choose
// which of these run, never their order.
import type { PluginDefinition } from '../admission/plugin.ts';

export const orderedPlugins: readonly PluginDefinition[] = [];

export const defaultEnabledPlugins: readonly string[] = ['AlwaysPullImages', 'OwnerReferencesPermissionEnforcement'];
