import { PluginInputRefusedError } from './PluginErrors.js';

/**
 * What a plugin name must look like: it becomes a folder name and a state key. Every Agent
 * Plugins name fits (dots included), and so does every name Loadout accepted before.
 */
export const PLUGIN_NAME_PATTERN = /^(?!.*\.\.)(?!.*\.$)[a-z0-9][a-z0-9.-]{0,63}$/;

/**
 * Checks a plugin name. Lower case only, so two names can never differ by case alone; no slash,
 * no leading dot, no `..` and no trailing dot, so a name can never leave `plugins/` or hide.
 *
 * @param origin where the name came from, for the message (`--name`, `plugin.json` …)
 */
export function parsePluginName(name: unknown, origin: string): string {
  if (typeof name === 'string' && PLUGIN_NAME_PATTERN.test(name)) return name;
  const shown = typeof name === 'string' ? JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name) : String(name);
  throw new PluginInputRefusedError(
    'PLUGIN_NAME_INVALID',
    `plugin name ${shown} (from ${origin}) must be 1-64 lower-case letters, digits, "-" or ".", starting with a letter or digit, with no ".." and no trailing "."`,
  );
}
