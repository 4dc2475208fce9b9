import { type InstalledPlugin, type PluginSource, type RootLayout } from '@loadout/kernel';
import { RACY_MS } from '@loadout/files';
import { PathStamps } from './PathStamps.js';
import type { PluginDefinition } from './PluginDefinition.js';
import type { PluginRegistry } from './PluginRegistry.js';
import { pluginPlaces, readPluginLayout } from './readPluginLayout.js';

/** A plugin's layout as last read, with what it was read from. */
interface KeptLayout {
  /** The root, its real path and the marketplace entry's definition it was read with. */
  readonly key: string;
  readonly stamps: PathStamps;
  readonly layout: RootLayout;
}

/**
 * The kernel's {@link PluginSource}: every installed plugin in precedence order, each with its
 * root (the clone, or the folder of a marketplace entry inside it) and the layout its manifest
 * gives. A layout is kept with the stamps of every path its reading looked at ({@link PathStamps})
 * and read again as soon as one of them moved, so an update or a hand edit of a manifest shows in
 * the very next session while a quiet workspace costs a stat per path, not a reading per plugin.
 */
export class PluginRoots implements PluginSource {
  private readonly kept = new Map<string, KeptLayout>();

  constructor(
    private readonly registry: PluginRegistry,
    private readonly dataDir: string,
    /** How recent a change keeps a layout from being kept ({@link RACY_MS}); tests shorten it. */
    private readonly racyMs = RACY_MS,
  ) {}

  listInstalledPlugins(): InstalledPlugin[] {
    const entries = this.registry.list();
    const listed = new Set(entries.map((entry) => entry.name));
    for (const name of this.kept.keys()) if (!listed.has(name)) this.kept.delete(name);
    return entries.map((entry) => ({
      name: entry.name,
      dir: entry.root,
      enabled: entry.enabled,
      layout: this.layoutOf(entry.name, entry.root, entry.definition),
    }));
  }

  private layoutOf(name: string, root: string, definition: PluginDefinition | null): RootLayout {
    const places = pluginPlaces(name, root, this.dataDir);
    const key = JSON.stringify([places.root, places.realRoot, definition]);
    const kept = this.kept.get(name);
    if (kept !== undefined && kept.key === key && kept.stamps.unchanged()) return kept.layout;
    const { value, stamps } = PathStamps.record((files) => readPluginLayout({ places, definition, files }), this.racyMs);
    if (stamps === null) this.kept.delete(name);
    else this.kept.set(name, { key, stamps, layout: value.layout });
    return value.layout;
  }
}
