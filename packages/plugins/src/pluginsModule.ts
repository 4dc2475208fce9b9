import { HttpRoutes } from '@loadout/api';
import { Migrations } from '@loadout/db';
import { CapabilityKinds, contribute, type LoadoutModule, Places, PluginSource, resolve, resolveAll } from '@loadout/kernel';
import { Lifecycle } from 'tsyringe';
import { PluginLifecycleListeners } from './PluginLifecycleListener.js';
import { pluginRoutes } from './pluginRoutes.js';
import { GitPluginManager, GitPluginManagerParts, PluginManager } from './PluginManager.js';
import { PluginRegistry, pluginRegistryMigration, pluginSourcesMigration, SqlitePluginRegistry } from './PluginRegistry.js';
import { PluginRoots } from './PluginRoots.js';
import { PluginLock, PluginLockFile } from './PluginLock.js';
import { GitPluginLockSync, PluginLockSync } from './PluginLockSync.js';
import { GitMarketplaceManager, MarketplaceManager } from './MarketplaceManager.js';
import { MarketplaceRegistry, marketplaceRegistryMigration, SqliteMarketplaceRegistry } from './MarketplaceRegistry.js';

/** Registers the plugin registry as the kernel's plugin source, the plugin manager and its routes. */
export const pluginsModule: LoadoutModule = (container) => {
  contribute(container, Migrations, pluginRegistryMigration);
  contribute(container, Migrations, pluginSourcesMigration);
  contribute(container, Migrations, marketplaceRegistryMigration);
  container.register(PluginRegistry, { useClass: SqlitePluginRegistry }, { lifecycle: Lifecycle.Singleton });
  const kindFolders = (): string[] => resolveAll(container, CapabilityKinds).map((kind) => kind.folder);
  container.register(PluginSource, { useFactory: (c) => new PluginRoots(resolve(c, PluginRegistry), resolve(c, Places).dataDir) });
  // Kinds and listeners are asked for when used, so modules registered after this one count.
  container.register(GitPluginManagerParts, {
    useValue: {
      kindFolders,
      listeners: () => resolveAll(container, PluginLifecycleListeners),
      env: process.env,
      cwd: () => process.cwd(),
    },
  });
  container.register(PluginLock, { useClass: PluginLockFile }, { lifecycle: Lifecycle.Singleton });
  container.register(PluginManager, { useClass: GitPluginManager }, { lifecycle: Lifecycle.Singleton });
  container.register(MarketplaceRegistry, { useClass: SqliteMarketplaceRegistry }, { lifecycle: Lifecycle.Singleton });
  container.register(MarketplaceManager, { useClass: GitMarketplaceManager }, { lifecycle: Lifecycle.Singleton });
  container.register(PluginLockSync, { useClass: GitPluginLockSync }, { lifecycle: Lifecycle.Singleton });
  for (const route of pluginRoutes) contribute(container, HttpRoutes, route);
};
