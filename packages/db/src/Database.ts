import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { token } from '@loadout/kernel';
import {
  ensurePrivateFolder,
  narrowMode,
  OperationFailedError,
  PRIVATE_FILE_MODE,
  ServiceUnavailableError,
  trackedFs,
} from '@loadout/files';
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
 * The database could not be used. `code` says why: `DATABASE_EMPTY` (a 0-byte file: refused, never
 * taken for a new database), `DATABASE_CORRUPT` (not a SQLite database, or damaged),
 * `DATABASE_READ_ONLY` (this user may not write it), `DATABASE_UNAVAILABLE` (it cannot be opened
 * at all). Nothing in the file was changed; `cause` is SQLite's or the file system's own error.
 */
export class DatabaseError extends OperationFailedError {}

/** A database server that does not answer (unreachable, too slow, out of connections): `DATABASE_UNAVAILABLE`, HTTP 503. */
export class DatabaseUnreachableError extends ServiceUnavailableError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('DATABASE_UNAVAILABLE', message, options);
  }
}

/**
 * Opens the database in `dataDir`: WAL journal, a busy timeout so two processes wait for each
 * other instead of failing, foreign keys on, and every pending migration applied inside one
 * `BEGIN IMMEDIATE` transaction.
 *
 * The data folder is made (or narrowed to) 0700 and the database files 0600: they hold every
 * plugin and switch, and the folder holds the server's token. A missing database is made whole
 * beside its place and linked in only once migrated, so a file of 0 bytes is never one Loadout
 * made: it is refused rather than silently becoming a new, empty database.
 *
 * @throws DatabaseError naming the file and what to do, with SQLite's error as its cause
 */
export function openDatabase(dataDir: string, migrations: readonly Migration[]): Database {
  const file = path.join(dataDir, DATABASE_FILE);
  try {
    ensurePrivateFolder(dataDir);
  } catch (error) {
    throw new DatabaseError('DATABASE_UNAVAILABLE', `cannot make the data folder ${dataDir} (${errorText(error)})`, { cause: error });
  }
  const stats = statOf(file);
  if (stats === undefined) {
    createDatabase(file, migrations);
  } else if (!stats.isFile()) {
    throw new DatabaseError(
      'DATABASE_UNAVAILABLE',
      `${file} is ${stats.isDirectory() ? 'a folder' : 'not a regular file'}, not a database; nothing was changed`,
    );
  } else if (stats.size === 0) {
    throw new DatabaseError(
      'DATABASE_EMPTY',
      `${file} is empty (0 bytes), so every plugin and on/off switch it held is gone from it; nothing was changed. Restore it from a backup, or delete it to start afresh`,
    );
  }
  for (const suffix of DATABASE_FILE_SUFFIXES) narrowMode(`${file}${suffix}`, PRIVATE_FILE_MODE);
  let db: Database | null = null;
  try {
    db = new BetterSqlite3(file, { timeout: 10_000, fileMustExist: true });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, migrations);
    return db;
  } catch (error) {
    db?.close();
    throw databaseError(file, error);
  }
}

/** The main file and the two SQLite keeps beside it in WAL mode. */
const DATABASE_FILE_SUFFIXES = ['', '-wal', '-shm'] as const;

/**
 * Makes a new database at `file`: created 0600 under a hidden name, migrated, closed, flushed, then
 * linked into place (which fails if another process got there first: its database is kept and ours
 * dropped). A crash part-way leaves only the hidden file, never a `loadout.db` of 0 bytes.
 *
 * Nothing but this connection knows the hidden file until it is linked, so it is built without a
 * journal on disk or a flush per transaction, put in WAL mode before it is closed (so the first
 * open of `loadout.db` need not switch it), and flushed once, before the link: the file that
 * appears under `loadout.db` is whole on disk, as when each transaction flushed it (a dozen flushes
 * and four journal files for a new database).
 */
function createDatabase(file: string, migrations: readonly Migration[]): void {
  const staging = path.join(path.dirname(file), `.${path.basename(file)}.new-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    fs.closeSync(trackedFs.openSync(staging, 'wx', PRIVATE_FILE_MODE));
    const db = new BetterSqlite3(staging, { fileMustExist: true });
    try {
      db.pragma('journal_mode = MEMORY');
      db.pragma('synchronous = OFF');
      migrate(db, migrations);
      db.pragma('journal_mode = WAL');
    } finally {
      db.close();
    }
    const fd = trackedFs.openSync(staging, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    try {
      trackedFs.linkSync(staging, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  } catch (error) {
    throw databaseError(file, error);
  } finally {
    for (const suffix of DATABASE_FILE_SUFFIXES) trackedFs.rmSync(`${staging}${suffix}`, { force: true });
  }
}

/** SQLite's or the file system's error as a {@link DatabaseError} that says what it means for the owner. */
function databaseError(file: string, error: unknown): DatabaseError {
  const code = (error as { code?: unknown }).code;
  const reason = errorText(error);
  if (code === 'SQLITE_NOTADB' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'))) {
    return new DatabaseError(
      'DATABASE_CORRUPT',
      `${file} is not a Loadout database or is damaged (${reason}); nothing was changed. Restore it from a backup, or move it aside to start afresh`,
      { cause: error },
    );
  }
  if ((typeof code === 'string' && code.startsWith('SQLITE_READONLY')) || code === 'SQLITE_PERM' || code === 'EROFS') {
    return new DatabaseError('DATABASE_READ_ONLY', `${file} cannot be written by this user (${reason}); check who owns the data folder`, {
      cause: error,
    });
  }
  const mismatch = nativeModuleMismatch(error);
  if (mismatch !== null) return mismatch;
  return new DatabaseError('DATABASE_UNAVAILABLE', `cannot open the database ${file} (${reason})`, { cause: error });
}

/**
 * SQLite's native module built for another Node version (after switching Node, say): Node's own
 * message spans several lines and names the numbers but not the fix, so it is retold in one line
 * with the one command that rebuilds the module for the Node now running.
 */
export function nativeModuleMismatch(error: unknown): DatabaseError | null {
  const message = error instanceof Error ? error.message : '';
  const versions = /NODE_MODULE_VERSION (\d+)[\s\S]*?NODE_MODULE_VERSION (\d+)/.exec(message);
  if (versions === null) return null;
  const modulePath = /The module '([^']+)'/.exec(message)?.[1] ?? '';
  const checkout = modulePath.includes(`${path.sep}node_modules${path.sep}`)
    ? modulePath.slice(0, modulePath.indexOf(`${path.sep}node_modules${path.sep}`))
    : null;
  const rebuild = checkout === null ? 'pnpm rebuild better-sqlite3' : `cd ${checkout} && pnpm rebuild better-sqlite3`;
  return new DatabaseError(
    'NATIVE_MODULE_MISMATCH',
    `SQLite's native module (better-sqlite3) was built for another Node version (NODE_MODULE_VERSION ${versions[1]}); Node ${process.version} needs ${versions[2]}: rebuild it with \`${rebuild}\``,
    { cause: error },
  );
}

function statOf(file: string): fs.Stats | undefined {
  try {
    return trackedFs.statSync(file, { throwIfNoEntry: false });
  } catch (error) {
    throw databaseError(file, error);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
}

function migrate(db: Database, migrations: readonly Migration[]): void {
  if (schemaIsCurrent(db, migrations)) return;
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
  const applied = db.prepare('SELECT 1 FROM schema_migrations WHERE id = ?');
  const record = db.prepare("INSERT INTO schema_migrations (id, applied_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))");
  writeTransaction(db, () => {
    db.exec(SESSION_COUNTER_SQL);
    for (const migration of migrations) {
      if (applied.get(migration.id) !== undefined) continue;
      db.exec(migration.sql);
      record.run(migration.id);
    }
  });
}

/**
 * Whether every migration is applied and the session counter made, read without a transaction: a
 * database already at this schema is opened without taking the write lock, so a read-only command
 * neither waits behind a writer nor writes. Anything missing (or no schema table yet) is left to
 * {@link migrate}'s write transaction, which checks each migration again under the lock.
 */
function schemaIsCurrent(db: Database, migrations: readonly Migration[]): boolean {
  let applied: Set<unknown>;
  try {
    if (db.prepare('SELECT 1 FROM session_change_stamp WHERE id = 1').get() === undefined) return false;
    applied = new Set(db.prepare('SELECT id FROM schema_migrations').pluck().all());
  } catch {
    return false;
  }
  return migrations.every((migration) => applied.has(migration.id));
}

/**
 * Runs `work` in a `BEGIN IMMEDIATE` transaction: the write lock is taken up front, so two
 * processes never both read and then fail to upgrade. Rolls back when `work` throws.
 */
export function writeTransaction<T>(db: Database, work: () => T): T {
  return db.transaction(work).immediate();
}

/**
 * The one-row counter a session change moves (the SQLite twin of PostgreSQL's shared counter):
 * made with the schema table, before any store's migration, so every store can mark a change.
 */
const SESSION_COUNTER_SQL = `CREATE TABLE IF NOT EXISTS session_change_stamp (id INTEGER PRIMARY KEY CHECK (id = 1), stamp INTEGER NOT NULL);
  INSERT OR IGNORE INTO session_change_stamp (id, stamp) VALUES (1, 0);`;

const counterStatements = new WeakMap<Database, { readonly read: BetterSqlite3.Statement; readonly bump: BetterSqlite3.Statement }>();

function counterOf(db: Database): { readonly read: BetterSqlite3.Statement; readonly bump: BetterSqlite3.Statement } {
  let statements = counterStatements.get(db);
  if (statements === undefined) {
    statements = {
      read: db.prepare('SELECT stamp FROM session_change_stamp WHERE id = 1'),
      bump: db.prepare('UPDATE session_change_stamp SET stamp = stamp + 1 WHERE id = 1'),
    };
    counterStatements.set(db, statements);
  }
  return statements;
}

/**
 * Marks the write transaction running on `db` as one a session depends on (a plugin row, a switch,
 * a trust decision): {@link sessionChangeCounter} moves for every connection once it commits, and
 * not at all if it rolls back. Writes no session reads (job rows, the inbox) leave it alone, so a
 * long-running server keeps what it derived from a session while tasks run.
 */
export function markSessionChanged(db: Database): void {
  counterOf(db).bump.run();
}

/** The session counter as committed, by this connection or any other (another process's CLI). */
export function sessionChangeCounter(db: Database): string {
  const row = counterOf(db).read.get() as { stamp: number } | undefined;
  return String(row?.stamp ?? 0);
}
