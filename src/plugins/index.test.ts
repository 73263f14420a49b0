import { describe, expect, it } from 'vitest';
import { defaultEnabledPlugins, orderedPlugins } from './index.ts';

describe('the ordered plugin list', () => {
  it('keeps kube-apiserver\'s AllOrderedPlugins relative order', () => {
    expect(orderedPlugins.map((p) => p.name)).toEqual([
      'ServiceAccount',
      'AlwaysPullImages',
      'StorageObjectInUseProtection',
      'OwnerReferencesPermissionEnforcement',
      'RuntimeClass',
    ]);
  });

  it('enables by default the plugins managed clusters cannot enable', () => {
    expect(defaultEnabledPlugins).toEqual(['AlwaysPullImages', 'OwnerReferencesPermissionEnforcement']);
    for (const name of defaultEnabledPlugins) expect(orderedPlugins.map((p) => p.name)).toContain(name);
  });
});
