import type { RootLayout } from './RootLayout.js';
import { token } from './token.js';

/** An installed plugin as the session loader needs to see it. */
export interface InstalledPlugin {
  readonly name: string;
  /** Absolute path of the plugin's root: its clone, or a folder inside it (a marketplace entry). */
  readonly dir: string;
  readonly enabled: boolean;
  /** Where its documents are, as its manifest says; absent: one folder per kind at the top of `dir`. */
  readonly layout?: RootLayout;
}

/**
 * Tells the loader which plugins are installed, in install order. Asked once each time a session
 * opens, never at module load, so a plugin disabled a moment ago is not in the next session.
 */
export interface PluginSource {
  listInstalledPlugins(): readonly InstalledPlugin[];
}
export const PluginSource = token<PluginSource>('kernel.pluginSource');
