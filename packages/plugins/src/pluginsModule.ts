import { HttpRoutes, type ServerService, ServerServices } from '@loadout/api';
import { DatabaseLocation, Migrations } from '@loadout/db';
import { CapabilityKinds, contribute, contributeLater, type LoadoutModule, Places, PluginSource, redactCredentials, resolve, resolveAll } from '@loadout/kernel';
import type { DependencyContainer } from 'tsyringe';
import { instanceCachingFactory, Lifecycle } from 'tsyringe';
import { PluginLifecycleListeners } from './PluginLifecycleListener.js';
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
  // One per container: it keeps each plugin's layout until a path its reading looked at moves.
  container.register(PluginSource, { useFactory: instanceCachingFactory((c) => new PluginRoots(resolve(c, PluginRegistry), resolve(c, Places).dataDir)) });
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
  // The routes load with the server, never in a one-shot command.
  contributeLater(container, async () => {
    const { pluginRoutes } = await import('./pluginRoutes.js');
    return (c) => {
      for (const route of pluginRoutes) contribute(c, HttpRoutes, route);
    };
  });
  contribute(container, ServerServices, perHostNotice(container));
};

/**
 * What `loadout serve` says on a shared database: a plugin is a clone on each host's disk, so the
 * plugin and marketplace registries stay in this data folder while everything else is shared,
 * and the lock file is how hosts keep their plugins equal (docs/decisions/database.md).
 */
function perHostNotice(container: DependencyContainer): ServerService {
  return {
    name: 'plugins',
    start: async () => {
      const { url } = resolve(container, DatabaseLocation);
      if (url === null) return { lines: [], json: {} };
      const { dataDir } = resolve(container, Places);
      const lockFile = resolve(container, PluginLock).file;
      return {
        lines: [
          `database: ${redactCredentials(url)}, shared with every server on it (jobs, inbox, switches, trust)`,
          `plugins and marketplaces are this host's own, in ${dataDir}; \`loadout plugins sync\` makes them match ${lockFile}`,
        ],
        json: { plugins: { shared: false, dataDir, lockFile } },
      };
    },
    stop: async () => undefined,
  };
}
