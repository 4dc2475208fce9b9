import { Migrations, PostgresMigrations } from '@loadout/db';
import { contribute, type LoadoutModule } from '@loadout/kernel';
import { usageMigration, usagePostgresMigration } from './SqlUsageStore.js';

/**
 * The usage ledger: its table now (every database is migrated whole), the store, the recorder,
 * the ledger and the server's spool timer later (a session never loads them: opening one records
 * and ingests nothing), its route with the server.
 */
export const usageModule: LoadoutModule = {
  name: 'usage',
  now: (container) => {
    contribute(container, Migrations, usageMigration);
    contribute(container, PostgresMigrations, usagePostgresMigration);
  },
  later: async () => (await import('./usageLaterModule.js')).usageLaterModule,
  routes: async () => (await import('./usageRoutes.js')).usageRoutes,
};
