import { ChangeStamps, contribute, type LoadoutModule, Places, resolve, resolveAll } from '@loadout/kernel';
import { instanceCachingFactory } from 'tsyringe';
import { Database, Migrations, openDatabase, sessionChangeCounter } from './Database.js';
import { PostgresSqlDatabase } from './PostgresSqlDatabase.js';
import { DATABASE_URL_VARIABLE, DatabaseLocation, databaseLocationOf, PostgresMigrations, SqlDatabase } from './SqlDatabase.js';
import { SqliteSqlDatabase } from './SqliteSqlDatabase.js';

/**
 * Registers the database, opened on first use with every contributed migration. Register it
 * before or after the modules that contribute migrations: nothing is opened until resolved.
 * {@link SqlDatabase} is the SQLite file, or the PostgreSQL database `LOADOUT_DATABASE_URL` names.
 */
export const dbModule: LoadoutModule = {
  name: 'db',
  now: (container) => {
    container.register(Database, {
      useFactory: instanceCachingFactory((c) => openDatabase(resolve(c, Places).dataDir, resolveAll(c, Migrations))),
    });
    // Sessions read plugins, switches and trust from the database, possibly written by another
    // process; on PostgreSQL by another host, announced through the shared session stamp. The
    // plugin registry stays in the SQLite file either way, with its own counter.
    contribute(container, ChangeStamps, {
      name: 'database',
      current: () => {
        const shared = resolve(container, SqlDatabase);
        return shared.dialect === 'sqlite'
          ? shared.sessionStamp()
          : `${sessionChangeCounter(resolve(container, Database))}+${shared.sessionStamp()}`;
      },
    });
    container.register(DatabaseLocation, {
      useFactory: instanceCachingFactory(() => databaseLocationOf(process.env[DATABASE_URL_VARIABLE])),
    });
    container.register(SqlDatabase, {
      useFactory: instanceCachingFactory((c): SqlDatabase => {
        const { url } = resolve(c, DatabaseLocation);
        return url === null ? new SqliteSqlDatabase(resolve(c, Database)) : new PostgresSqlDatabase(url, resolveAll(c, PostgresMigrations));
      }),
    });
  },
};
