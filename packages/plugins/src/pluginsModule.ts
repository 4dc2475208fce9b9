import { Migrations } from '@loadout/db';
import { contribute, type LoadoutModule, PluginSource } from '@loadout/kernel';
import { Lifecycle } from 'tsyringe';
import { PluginRegistry, pluginRegistryMigration, SqlitePluginRegistry } from './PluginRegistry.js';

/** Registers the plugin registry as the kernel's plugin source. */
export const pluginsModule: LoadoutModule = (container) => {
  contribute(container, Migrations, pluginRegistryMigration);
  container.register(PluginRegistry, { useClass: SqlitePluginRegistry }, { lifecycle: Lifecycle.Singleton });
  container.register(PluginSource, { useFactory: (c) => c.resolve(PluginRegistry) });
};
