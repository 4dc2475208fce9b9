import { token } from './token.js';

/** An installed plugin as the session loader needs to see it. */
export interface InstalledPlugin {
  readonly name: string;
  /** Absolute path of the plugin's clone. */
  readonly dir: string;
  readonly enabled: boolean;
}

/**
 * Tells the loader which plugins are installed, in install order. Asked once each time a session
 * opens, never at module load, so a plugin disabled a moment ago is not in the next session.
 */
export interface PluginSource {
  listInstalledPlugins(): readonly InstalledPlugin[];
}
export const PluginSource = token<PluginSource>('kernel.pluginSource');
