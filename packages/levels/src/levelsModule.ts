import { Migrations, PostgresMigrations } from '@loadout/db';
import { contribute, type LoadoutModule, type Registration } from '@loadout/kernel';
import { MoveFileSystem, nodeMoveFileSystem } from './MoveFileSystem.js';
import { transferJournalMigration, transferJournalPostgresMigration, transferPlaceMigration } from './TransferJournal.js';

/**
 * The journal's tables and the real file system, at once: a session's database is migrated with
 * every table, and a test's file system registered after the container is made stays.
 */
const registerJournal: Registration = (container) => {
  contribute(container, Migrations, transferJournalMigration);
  contribute(container, Migrations, transferPlaceMigration);
  contribute(container, PostgresMigrations, transferJournalPostgresMigration);
  container.register(MoveFileSystem, { useValue: nodeMoveFileSystem });
};

/**
 * Registers the levels mover on the real file system, its journal table, and the JSON-RPC methods
 * that list and move skills and MCP servers. Needs the database, the state store and the
 * skill/server kinds. The mover (with its plan and the gate rewrites) is the module's later part,
 * which a session never loads.
 */
export const levelsModule: LoadoutModule = {
  name: 'levels',
  now: registerJournal,
  later: async () => (await import('./levelsMoverModule.js')).levelsMoverModule,
  rpcMethods: async () => {
    const [{ capabilityRpcMethods }, { levelsRpcMethods }] = await Promise.all([
      import('./capabilityRpcMethods.js'),
      import('./levelsRpcMethods.js'),
    ]);
    return [...capabilityRpcMethods, ...levelsRpcMethods];
  },
};
