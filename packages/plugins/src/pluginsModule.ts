import { Migrations } from '@loadout/db';
import { contribute, type LoadoutModule, Places, PluginSource, type Registration, resolve } from '@loadout/kernel';
import { instanceCachingFactory, Lifecycle } from 'tsyringe';
import { MarketplaceRegistry, marketplaceRegistryMigration, SqliteMarketplaceRegistry } from './MarketplaceRegistry.js';
import {
  PluginRegistry,
  pluginRegistryMigration,
  pluginSharedClonesMigration,
  pluginSourcesMigration,
  SqlitePluginRegistry,
} from './PluginRegistry.js';
import { PluginRoots } from './PluginRoots.js';

/**
 * The registries and the kernel's plugin source, at once: a session reads installed plugins
 * through them, and its database is migrated with every table.
 */
const registerRegistries: Registration = (container) => {
  contribute(container, Migrations, pluginRegistryMigration);
  contribute(container, Migrations, pluginSourcesMigration);
  contribute(container, Migrations, pluginSharedClonesMigration);
  contribute(container, Migrations, marketplaceRegistryMigration);
  container.register(PluginRegistry, { useClass: SqlitePluginRegistry }, { lifecycle: Lifecycle.Singleton });
  // One per container: it keeps each plugin's layout until a path its reading looked at moves.
  container.register(PluginSource, {
    useFactory: instanceCachingFactory((c) => new PluginRoots(resolve(c, PluginRegistry), resolve(c, Places).dataDir)),
  });
  container.register(MarketplaceRegistry, { useClass: SqliteMarketplaceRegistry }, { lifecycle: Lifecycle.Singleton });
};

/**
 * Registers the plugin registry as the kernel's plugin source, the plugin manager and its routes.
 * The manager, the marketplaces' manager, the lock file and its sync (git, the install's staging)
 * are the module's later part (pluginManagersModule.ts), which a session never loads.
 */
export const pluginsModule: LoadoutModule = {
  name: 'plugins',
  now: registerRegistries,
  later: async () => (await import('./pluginManagersModule.js')).pluginManagersModule,
  routes: async () => (await import('./pluginRoutes.js')).pluginRoutes,
};
