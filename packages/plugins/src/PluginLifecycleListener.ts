import { token } from '@loadout/kernel';

/**
 * Told when the set of installed plugins changes, so a package that keeps data per plugin can
 * follow without the plugins package knowing it exists. Called after the change is done: a throw
 * is reported as a warning and never undoes it.
 *
 * @example
 * container.register(PluginLifecycleListeners, {
 *   useFactory: (c) => ({ pluginUninstalled: (name) => resolve(c, StateStore).forgetPlugin(name) }),
 * });
 */
export interface PluginLifecycleListener {
  /** The plugin's folder and registry row are gone. */
  pluginUninstalled(name: string): void;
}
export const PluginLifecycleListeners = token<PluginLifecycleListener>('plugins.lifecycleListeners');
