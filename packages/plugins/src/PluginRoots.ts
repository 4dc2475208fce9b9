import type { InstalledPlugin, PluginSource } from '@loadout/kernel';
import type { PluginRegistry } from './PluginRegistry.js';
import { pluginPlaces, readPluginLayout } from './readPluginLayout.js';

/**
 * The kernel's {@link PluginSource}: every installed plugin in precedence order, each with its
 * root (the clone, or the folder of a marketplace entry inside it) and the layout its manifest
 * gives, read now so an update or a hand edit shows in this very session.
 */
export class PluginRoots implements PluginSource {
  constructor(
    private readonly registry: PluginRegistry,
    private readonly dataDir: string,
  ) {}

  listInstalledPlugins(): InstalledPlugin[] {
    return this.registry.list().map((entry) => {
      const reading = readPluginLayout({ places: pluginPlaces(entry.name, entry.root, this.dataDir), definition: entry.definition });
      return { name: entry.name, dir: entry.root, enabled: entry.enabled, layout: reading.layout };
    });
  }
}
