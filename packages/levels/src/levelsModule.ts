import { Migrations } from '@loadout/db';
import { contribute, type LoadoutModule } from '@loadout/kernel';
import { CapabilityLevels, FileCapabilityLevels } from './CapabilityLevels.js';
import { MoveFileSystem, nodeMoveFileSystem } from './MoveFileSystem.js';
import { transferJournalMigration } from './TransferJournal.js';

/**
 * Registers the levels mover on the real file system and its journal table. Needs the database,
 * the state store and the skill/server kinds.
 */
export const levelsModule: LoadoutModule = (container) => {
  contribute(container, Migrations, transferJournalMigration);
  container.register(MoveFileSystem, { useValue: nodeMoveFileSystem });
  container.register(CapabilityLevels, { useClass: FileCapabilityLevels });
};
