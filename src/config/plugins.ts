// Which plugins run and in what mode, from the flags. The order is never the flags': it is the
// compiled-in list's.
import { isPluginMode, type PluginDefinition, PluginMode } from '../admission/plugin.ts';

export interface PluginSelectionFlags {
  plugins?: string[] | undefined;
  enable?: string[] | undefined;
  disable?: string[] | undefined;
  modes?: string[] | undefined;
}

export interface PluginSelection {
  /** Enabled plugin names, in the compiled-in order. */
  enabled: string[];
  modes: Record<string, PluginMode>;
}

export function selectPlugins(
  ordered: readonly PluginDefinition[],
  defaults: readonly string[],
  flags: PluginSelectionFlags,
): PluginSelection {
  const known = ordered.map((p) => p.name);
  const check = (names: string[], flag: string) => {
    for (const name of names) {
      if (!known.includes(name)) {
        throw new Error(`${flag}: unknown admission plugin ${JSON.stringify(name)}; known plugins: ${known.join(', ')}`);
      }
    }
  };
  const exact = splitList(flags.plugins);
  const enable = splitList(flags.enable);
  const disable = splitList(flags.disable);
  check(exact, '--plugins');
  check(enable, '--enable-admission-plugins');
  check(disable, '--disable-admission-plugins');
  if (flags.plugins !== undefined && (enable.length > 0 || disable.length > 0)) {
    throw new Error(
      '--plugins sets the exact plugin set; do not combine it with --enable-admission-plugins or --disable-admission-plugins',
    );
  }
  const both = enable.filter((name) => disable.includes(name));
  if (both.length > 0) throw new Error(`plugins both enabled and disabled: ${both.join(', ')}`);
  const wanted = new Set(flags.plugins !== undefined ? exact : [...defaults, ...enable].filter((n) => !disable.includes(n)));
  const enabled = known.filter((name) => wanted.has(name));

  const modes: Record<string, PluginMode> = {};
  for (const name of enabled) modes[name] = PluginMode.Enforce;
  for (const entry of splitList(flags.modes)) {
    const [name, mode, extra] = entry.split('=');
    if (!name || mode === undefined || extra !== undefined) {
      throw new Error(`--plugin-mode ${JSON.stringify(entry)}: expected NAME=enforce|warn|audit`);
    }
    check([name], '--plugin-mode');
    if (!isPluginMode(mode)) throw new Error(`--plugin-mode ${JSON.stringify(entry)}: mode must be enforce, warn or audit`);
    if (!enabled.includes(name)) throw new Error(`--plugin-mode ${JSON.stringify(entry)}: plugin ${name} is not enabled`);
    modes[name] = mode;
  }
  return { enabled, modes };
}

/** Flags may be repeated and/or comma-separated. */
export function splitList(values: string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}
