import { Migrations, PostgresMigrations } from '@loadout/db';
import { CapabilityFilters, contribute, type LoadoutModule, type Registration, resolve } from '@loadout/kernel';
import { PluginLifecycleListeners } from '@loadout/plugins/lifecycle';
import { Lifecycle } from 'tsyringe';
import { CapabilityStateFilter } from './CapabilityStateFilter.js';
import {
  capabilityStateMigration,
  capabilityStatePostgresMigration,
  CapabilityStateStore,
  SqlCapabilityStateStore,
} from './CapabilityStateStore.js';

/**
 * The state's table, its store, the session filter that makes off mean off, and the listener that
 * forgets an uninstalled plugin's state, at once: a session reads them.
 */
const registerStore: Registration = (container) => {
  contribute(container, Migrations, capabilityStateMigration);
  contribute(container, PostgresMigrations, capabilityStatePostgresMigration);
  container.register(CapabilityStateStore, { useClass: SqlCapabilityStateStore }, { lifecycle: Lifecycle.Singleton });
  // One filter per container: it keeps its last answer for the next session (see CapabilityStateFilter).
  container.register(CapabilityStateFilter, { useClass: CapabilityStateFilter }, { lifecycle: Lifecycle.Singleton });
  container.register(CapabilityFilters, { useFactory: (c) => c.resolve(CapabilityStateFilter) });
  container.register(PluginLifecycleListeners, {
    useFactory: (c) => ({
      pluginUninstalled: (name: string) =>
        void resolve(c, CapabilityStateStore)
          .forgetPlugin(name)
          .catch((error: unknown) =>
            process.emitWarning(`the switches of uninstalled plugin ${name} could not be forgotten: ${(error as Error).message}`),
          ),
    }),
  });
};

/**
 * Registers capability state: its table, the store, the resolver/writer service, the session
 * filter that makes off mean off, the listener that forgets an uninstalled plugin's state, and
 * the `capability.state` / `capability.set` JSON-RPC methods. The service (which writes, with the
 * desired-state schemas and the gate rewrites) is the module's later part, which a session never
 * loads.
 */
export const stateModule: LoadoutModule = {
  name: 'state',
  now: registerStore,
  later: async () => (await import('./stateServiceModule.js')).stateServiceModule,
  rpcMethods: async () => (await import('./stateRpcMethods.js')).stateRpcMethods,
};
