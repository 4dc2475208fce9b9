import fs from 'node:fs';
import path from 'node:path';
import { OperationFailedError, token } from '@loadout/kernel';
import BetterSqlite3 from 'better-sqlite3';

/** The one app-local SQLite database, `loadout.db` in the data folder. */
// An interface, not an alias, so declarations can name it.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Database extends BetterSqlite3.Database {}
export const Database = token<Database>('db.database');

/**
 * A numbered schema change contributed by the package that owns the tables. Ids are
 * `<package>/<number>-<what>` and never change once shipped; each runs once, in registration order.
 *
 * @example
 * container.register(Migrations, { useValue: { id: 'plugins/001-registry', sql: 'CREATE TABLE plugins (...)' } });
 */
export interface Migration {
  readonly id: string;
  readonly sql: string;
}
export const Migrations = token<Migration>('db.migrations');

/** The database file name inside the data folder. */
export const DATABASE_FILE = 'loadout.db';

/**
 * Opens (creating when needed) the database in `dataDir`: WAL journal, a busy timeout so two
 * processes wait for each other instead of failing, foreign keys on, and every pending migration
 * applied inside one `BEGIN IMMEDIATE` transaction.
 */
export function openDatabase(dataDir: string, migrations: readonly Migration[]): Database {
  fs.mkdirSync(dataDir, { recursive: true });
  let db: Database;
  try {
    db = new BetterSqlite3(path.join(dataDir, DATABASE_FILE), { timeout: 10_000 });
  } catch (error) {
    throw new OperationFailedError('DATABASE_UNAVAILABLE', `cannot open the database in ${dataDir}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  migrate(db, migrations);
  return db;
}

function migrate(db: Database, migrations: readonly Migration[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
  const applied = db.prepare('SELECT 1 FROM schema_migrations WHERE id = ?');
  const record = db.prepare("INSERT INTO schema_migrations (id, applied_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))");
  writeTransaction(db, () => {
    for (const migration of migrations) {
      if (applied.get(migration.id) !== undefined) continue;
      db.exec(migration.sql);
      record.run(migration.id);
    }
  });
}

/**
 * Runs `work` in a `BEGIN IMMEDIATE` transaction: the write lock is taken up front, so two
 * processes never both read and then fail to upgrade. Rolls back when `work` throws.
 */
export function writeTransaction<T>(db: Database, work: () => T): T {
  return db.transaction(work).immediate();
}

const stampStatements = new WeakMap<Database, BetterSqlite3.Statement>();

/**
 * A value that changes whenever anything is committed to the database, by this connection
 * (`total_changes()`) or by any other, in this process or another (`PRAGMA data_version`). Cheap
 * (two counters, no table read), so a long-running process can ask it before trusting what it
 * derived from the tables, e.g. the capability switches a session was filtered with.
 */
export function databaseChangeStamp(db: Database): string {
  let statement = stampStatements.get(db);
  if (statement === undefined) {
    statement = db.prepare('SELECT total_changes() AS own, (SELECT data_version FROM pragma_data_version) AS others');
    stampStatements.set(db, statement);
  }
  const { own, others } = statement.get() as { own: number; others: number };
  return `${others}:${own}`;
}
