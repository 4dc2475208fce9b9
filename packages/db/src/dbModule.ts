import { ChangeStamps, contribute, type LoadoutModule, Places, resolve, resolveAll } from '@loadout/kernel';
import { instanceCachingFactory } from 'tsyringe';
import { Database, databaseChangeStamp, Migrations, openDatabase } from './Database.js';

/**
 * Registers the database, opened on first use with every contributed migration. Register it
 * before or after the modules that contribute migrations: nothing is opened until resolved.
 */
export const dbModule: LoadoutModule = (container) => {
  container.register(Database, {
    useFactory: instanceCachingFactory((c) => openDatabase(resolve(c, Places).dataDir, resolveAll(c, Migrations))),
  });
  // Sessions read plugins and switches from the database, possibly written by another process.
  contribute(container, ChangeStamps, { name: 'database', current: () => databaseChangeStamp(resolve(container, Database)) });
};
