import { RpcMethods } from '@loadout/api';
import { Migrations } from '@loadout/db';
import { contribute, type LoadoutModule } from '@loadout/kernel';
import { CapabilityLevels, FileCapabilityLevels } from './CapabilityLevels.js';
import { capabilityRpcMethods } from './capabilityRpcMethods.js';
import { levelsRpcMethods } from './levelsRpcMethods.js';
import { MoveFileSystem, nodeMoveFileSystem } from './MoveFileSystem.js';
import { transferJournalMigration } from './TransferJournal.js';

/**
 * Registers the levels mover on the real file system, its journal table, and the JSON-RPC methods
 * that list and move skills and MCP servers. Needs the database, the state store and the
 * skill/server kinds.
 */
export const levelsModule: LoadoutModule = (container) => {
  contribute(container, Migrations, transferJournalMigration);
  container.register(MoveFileSystem, { useValue: nodeMoveFileSystem });
  container.register(CapabilityLevels, { useClass: FileCapabilityLevels });
  for (const method of [...capabilityRpcMethods, ...levelsRpcMethods]) contribute(container, RpcMethods, method);
};
