import { findPluginManifest, manifestName } from './findPluginManifest.js';
import { parsePluginName } from './parsePluginName.js';
import { PluginRepositoryRefusedError } from './PluginErrors.js';

/**
 * A plugin's name: the one its manifest gives (the manifest Loadout reads, by precedence), else
 * the repository's base name. A manifest that makes the plugin unreadable — an Agent Plugins
 * `plugin.json` with a fatal problem, a manifest that is not a JSON object or leads outside the
 * clone — refuses the install, whatever name was asked for, rather than falling through.
 */
export function readPluginName(root: string, baseName: string, requested: string | null = null): string {
  const manifest = findPluginManifest(root);
  if ('rejected' in manifest) {
    throw new PluginRepositoryRefusedError('PLUGIN_MANIFEST_INVALID', `cannot read the plugin's manifest: ${manifest.rejected}`);
  }
  if (requested !== null) return requested;
  const name = manifestName(manifest);
  if (name !== null) return parsePluginName(name, manifest.file ?? 'the manifest');
  return parsePluginName(baseName, 'the repository name; give --name to choose one');
}
