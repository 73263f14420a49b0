import { describe, expect, it } from 'vitest';
import type { PluginDefinition } from '../admission/plugin.ts';
import { selectPlugins } from './plugins.ts';

const def = (name: string): PluginDefinition => ({ name, needs: [], create: () => ({ name, handles: () => true }) });
const ordered = [
  'ServiceAccount',
  'AlwaysPullImages',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'RuntimeClass',
].map(def);
const defaults = ['AlwaysPullImages', 'OwnerReferencesPermissionEnforcement'];

describe('selectPlugins', () => {
  it('enables the defaults when no flag is given', () => {
    expect(selectPlugins(ordered, defaults, {}).enabled).toEqual(defaults);
  });

  it('keeps the compiled-in order whatever the flag order', () => {
    const selection = selectPlugins(ordered, defaults, {
      plugins: ['RuntimeClass,OwnerReferencesPermissionEnforcement', 'ServiceAccount'],
    });
    expect(selection.enabled).toEqual(['ServiceAccount', 'OwnerReferencesPermissionEnforcement', 'RuntimeClass']);
  });

  it('adds and removes from the defaults', () => {
    const selection = selectPlugins(ordered, defaults, { enable: ['RuntimeClass', 'ServiceAccount'], disable: ['AlwaysPullImages'] });
    expect(selection.enabled).toEqual(['ServiceAccount', 'OwnerReferencesPermissionEnforcement', 'RuntimeClass']);
  });

  it('sets modes per plugin, enforce by default', () => {
    const selection = selectPlugins(ordered, defaults, { modes: ['OwnerReferencesPermissionEnforcement=warn'] });
    expect(selection.modes).toEqual({ AlwaysPullImages: 'enforce', OwnerReferencesPermissionEnforcement: 'warn' });
  });

  it.each([
    [
      { plugins: ['Nope'] },
      '--plugins: unknown admission plugin "Nope"; known plugins: ServiceAccount, AlwaysPullImages, StorageObjectInUseProtection, OwnerReferencesPermissionEnforcement, RuntimeClass',
    ],
    [{ enable: ['alwayspullimages'] }, '--enable-admission-plugins: unknown admission plugin "alwayspullimages"'],
    [{ plugins: ['AlwaysPullImages'], enable: ['RuntimeClass'] }, 'do not combine it with'],
    [{ enable: ['RuntimeClass'], disable: ['RuntimeClass'] }, 'plugins both enabled and disabled: RuntimeClass'],
    [{ modes: ['AlwaysPullImages'] }, 'expected NAME=enforce|warn|audit'],
    [{ modes: ['AlwaysPullImages=loud'] }, 'mode must be enforce, warn or audit'],
    [{ modes: ['RuntimeClass=warn'] }, 'plugin RuntimeClass is not enabled'],
  ])('rejects %j', (flags, message) => {
    expect(() => selectPlugins(ordered, defaults, flags)).toThrow(message);
  });
});
