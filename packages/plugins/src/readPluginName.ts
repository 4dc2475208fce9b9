import path from 'node:path';
import { DocumentRefusedError, readJsonInside } from '@loadout/kernel';
import { parsePluginName } from './parsePluginName.js';
import { PluginRepositoryRefusedError } from './PluginErrors.js';

/** Manifests that may name a plugin, in the order they are asked. */
const MANIFESTS = ['plugin.json', '.claude-plugin/plugin.json'] as const;

/**
 * A cloned plugin's name: its `plugin.json` `name`, else `.claude-plugin/plugin.json`'s (so Claude
 * Code plugins install unchanged), else the repository's base name. A manifest is data read inside
 * the clone: a link leading out of it, malformed JSON or a `name` that is not a valid plugin name
 * refuses the install rather than silently falling through to the next source.
 */
export function readPluginName(cloneDir: string, baseName: string): string {
  for (const manifest of MANIFESTS) {
    let data: unknown;
    try {
      data = readJsonInside(cloneDir, path.join(cloneDir, manifest));
    } catch (error) {
      const reason = error instanceof DocumentRefusedError ? error.message : `${manifest}: ${(error as Error).message}`;
      throw new PluginRepositoryRefusedError('PLUGIN_MANIFEST_INVALID', `cannot read the plugin's ${manifest}: ${reason}`, { cause: error });
    }
    if (data === null) continue;
    if (typeof data !== 'object' || Array.isArray(data)) {
      throw new PluginRepositoryRefusedError('PLUGIN_MANIFEST_INVALID', `the plugin's ${manifest} must be a JSON object`);
    }
    const name = (data as Record<string, unknown>).name;
    if (name === undefined) continue;
    return parsePluginName(name, manifest);
  }
  return parsePluginName(baseName, 'the repository name; give --name to choose one');
}
