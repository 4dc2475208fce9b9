import { RpcMethods } from '@loadout/api';
import { Migrations, PostgresMigrations } from '@loadout/db';
import { contribute, contributeLater, type LoadoutModule } from '@loadout/kernel';
import { CapabilityLevels, FileCapabilityLevels } from './CapabilityLevels.js';
import { MoveFileSystem, nodeMoveFileSystem } from './MoveFileSystem.js';
import { transferJournalMigration, transferJournalPostgresMigration, transferPlaceMigration } from './TransferJournal.js';

/**
 * Registers the levels mover on the real file system, its journal table, and the JSON-RPC methods
 * that list and move skills and MCP servers. Needs the database, the state store and the
 * skill/server kinds.
 */
export const levelsModule: LoadoutModule = (container) => {
  contribute(container, Migrations, transferJournalMigration);
  contribute(container, Migrations, transferPlaceMigration);
  contribute(container, PostgresMigrations, transferJournalPostgresMigration);
  container.register(MoveFileSystem, { useValue: nodeMoveFileSystem });
  container.register(CapabilityLevels, { useClass: FileCapabilityLevels });
  // The methods load with the server, never in a one-shot command.
  contributeLater(container, async () => {
    const [{ capabilityRpcMethods }, { levelsRpcMethods }] = await Promise.all([import('./capabilityRpcMethods.js'), import('./levelsRpcMethods.js')]);
    return (c) => {
      for (const method of [...capabilityRpcMethods, ...levelsRpcMethods]) contribute(c, RpcMethods, method);
    };
  });
};
