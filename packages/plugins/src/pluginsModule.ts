import { HttpRoutes } from '@loadout/api';
import { Migrations } from '@loadout/db';
import { CapabilityKinds, contribute, type LoadoutModule, PluginSource, resolveAll } from '@loadout/kernel';
import { Lifecycle } from 'tsyringe';
import { PluginLifecycleListeners } from './PluginLifecycleListener.js';
import { pluginRoutes } from './pluginRoutes.js';
import { GitPluginManager, GitPluginManagerParts, PluginManager } from './PluginManager.js';
import { PluginRegistry, pluginRegistryMigration, SqlitePluginRegistry } from './PluginRegistry.js';

/** Registers the plugin registry as the kernel's plugin source, the plugin manager and its routes. */
export const pluginsModule: LoadoutModule = (container) => {
  contribute(container, Migrations, pluginRegistryMigration);
  container.register(PluginRegistry, { useClass: SqlitePluginRegistry }, { lifecycle: Lifecycle.Singleton });
  container.register(PluginSource, { useFactory: (c) => c.resolve(PluginRegistry) });
  // Kinds and listeners are asked for when used, so modules registered after this one count.
  container.register(GitPluginManagerParts, {
    useValue: {
      kindFolders: () => resolveAll(container, CapabilityKinds).map((kind) => kind.folder),
      listeners: () => resolveAll(container, PluginLifecycleListeners),
      env: process.env,
      cwd: () => process.cwd(),
    },
  });
  container.register(PluginManager, { useClass: GitPluginManager }, { lifecycle: Lifecycle.Singleton });
  for (const route of pluginRoutes) contribute(container, HttpRoutes, route);
};
