import { describe, expect, it } from 'vitest';
import { defaultEnabledPlugins, orderedPlugins } from './index.ts';

describe('the ordered plugin list', () => {
  it("keeps kube-apiserver's AllOrderedPlugins relative order", () => {
    expect(orderedPlugins.map((p) => p.name)).toEqual([
      'LimitPodHardAntiAffinityTopology',
      'ServiceAccount',
      'AlwaysPullImages',
      'ImagePolicyWebhook',
      'PodNodeSelector',
      'PodTolerationRestriction',
      'EventRateLimit',
      'ExtendedResourceToleration',
      'StorageObjectInUseProtection',
      'OwnerReferencesPermissionEnforcement',
      'RuntimeClass',
      'DenyServiceExternalIPs',
      'PodTopologyLabels',
    ]);
  });

  it('enables by default the plugins managed clusters cannot enable, and none of the scheduling or Service ones', () => {
    expect(defaultEnabledPlugins).toEqual(['AlwaysPullImages', 'OwnerReferencesPermissionEnforcement']);
    for (const name of defaultEnabledPlugins) expect(orderedPlugins.map((p) => p.name)).toContain(name);
  });

  it('declares the namespace lookup only for the plugins that read namespaces', () => {
    const readers = orderedPlugins.filter((p) => p.lookups?.includes('namespaces')).map((p) => p.name);
    expect(readers).toEqual(['PodNodeSelector', 'PodTolerationRestriction']);
  });

  it('declares the node lookup only for PodTopologyLabels', () => {
    expect(orderedPlugins.filter((p) => p.lookups?.includes('nodes')).map((p) => p.name)).toEqual(['PodTopologyLabels']);
  });
});
