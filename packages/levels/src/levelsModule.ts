import { RpcMethods } from '@loadout/api';
import { Migrations, PostgresMigrations } from '@loadout/db';
import { contribute, type LoadoutModule } from '@loadout/kernel';
import { CapabilityLevels, FileCapabilityLevels } from './CapabilityLevels.js';
import { capabilityRpcMethods } from './capabilityRpcMethods.js';
import { levelsRpcMethods } from './levelsRpcMethods.js';
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
  for (const method of [...capabilityRpcMethods, ...levelsRpcMethods]) contribute(container, RpcMethods, method);
};
