import { HttpRoutes } from '@loadout/api';
import { Migrations } from '@loadout/db';
import { CapabilityHolds, contribute, type LoadoutModule, resolve } from '@loadout/kernel';
import { PluginLifecycleListeners } from '@loadout/plugins';
import { Lifecycle } from 'tsyringe';
import { RunnableCapabilities } from './RunnableCapabilities.js';
import { SqliteTrustStore, trustMigration } from './SqliteTrustStore.js';
import { TrustHolder } from './TrustHolder.js';
import { trustRoutes } from './trustRoutes.js';
import { StoredTrustService, TrustService } from './TrustService.js';
import { TrustStore } from './TrustStore.js';

/**
 * Registers trust: its tables, the store, the rule every session asks (held capabilities stay
 * listed, and every face refuses to run them), the owner's service and its routes, and the
 * listener that forgets an uninstalled plugin's approval.
 */
export const trustModule: LoadoutModule = (container) => {
  contribute(container, Migrations, trustMigration);
  container.register(TrustStore, { useClass: SqliteTrustStore }, { lifecycle: Lifecycle.Singleton });
  container.register(RunnableCapabilities, { useClass: RunnableCapabilities }, { lifecycle: Lifecycle.Singleton });
  container.register(TrustHolder, { useClass: TrustHolder }, { lifecycle: Lifecycle.Singleton });
  container.register(CapabilityHolds, { useFactory: (c) => c.resolve(TrustHolder) });
  container.register(TrustService, { useClass: StoredTrustService }, { lifecycle: Lifecycle.Singleton });
  container.register(PluginLifecycleListeners, { useFactory: (c) => ({ pluginUninstalled: (name: string) => resolve(c, TrustStore).forgetPlugin(name) }) });
  for (const route of trustRoutes) contribute(container, HttpRoutes, route);
};
