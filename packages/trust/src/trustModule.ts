import { Migrations, PostgresMigrations } from '@loadout/db';
import { CapabilityHolds, contribute, type LoadoutModule, type Registration, resolve } from '@loadout/kernel';
import { PluginLifecycleListeners } from '@loadout/plugins/lifecycle';
import { Lifecycle } from 'tsyringe';
import { RunnableCapabilities } from './RunnableCapabilities.js';
import { SqlTrustStore, trustMigration, trustPostgresMigration } from './SqlTrustStore.js';
import { TrustHolder } from './TrustHolder.js';
import { TrustStore } from './TrustStore.js';

/**
 * Trust's tables, the store, the rule every session asks (held capabilities stay listed, and every
 * face refuses to run them) and the listener that forgets an uninstalled plugin's approval, at once:
 * a session reads them.
 */
const registerHolder: Registration = (container) => {
  contribute(container, Migrations, trustMigration);
  contribute(container, PostgresMigrations, trustPostgresMigration);
  container.register(TrustStore, { useClass: SqlTrustStore }, { lifecycle: Lifecycle.Singleton });
  container.register(RunnableCapabilities, { useClass: RunnableCapabilities }, { lifecycle: Lifecycle.Singleton });
  container.register(TrustHolder, { useClass: TrustHolder }, { lifecycle: Lifecycle.Singleton });
  container.register(CapabilityHolds, { useFactory: (c) => c.resolve(TrustHolder) });
  container.register(PluginLifecycleListeners, {
    useFactory: (c) => ({
      pluginUninstalled: (name: string) =>
        void resolve(c, TrustStore)
          .forgetPlugin(name)
          .catch((error: unknown) =>
            process.emitWarning(`the approval of uninstalled plugin ${name} could not be forgotten: ${(error as Error).message}`),
          ),
    }),
  });
};

/**
 * Registers trust: its tables, the store, the rule every session asks, the owner's service and its
 * routes, and the listener that forgets an uninstalled plugin's approval. The owner's service
 * (which reads plugins' git heads for an audit) is the module's later part, which a session never
 * loads.
 */
export const trustModule: LoadoutModule = {
  name: 'trust',
  now: registerHolder,
  later: async () => (await import('./trustServiceModule.js')).trustServiceModule,
  routes: async () => (await import('./trustRoutes.js')).trustRoutes,
};
