import { redactCredentials, token } from '@loadout/kernel';
import { InvalidInputError } from '@loadout/files';

/** Which engine holds Loadout's tables: the SQLite file in the data folder, or a PostgreSQL server. */
export type SqlDialect = 'sqlite' | 'postgres';

/**
 * What a store's statements run on, inside or outside a transaction. Statements are written once
 * for both engines: `?` placeholders (turned into `$1…` for PostgreSQL), plain `SELECT`, `INSERT …
 * RETURNING`, `UPDATE`, `DELETE`. Integers come back as numbers on both (ids, epoch milliseconds).
 */
export interface SqlClient {
  readonly dialect: SqlDialect;
  /** The rows the statement returned (none for a statement without `RETURNING`). */
  query<R>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** The first row the statement returned, or undefined. */
  queryOne<R>(sql: string, params?: readonly unknown[]): Promise<R | undefined>;
  /** How many rows the statement changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}

/**
 * A database the stores share, whichever engine holds it. Every store method is one
 * {@link SqlDatabase.transaction} (or one statement), so the contract is the same on both:
 * atomic across the workers of a process and across processes and hosts.
 *
 * @example
 * const job = await db.transaction(async (tx) => {
 *   const row = await tx.queryOne<JobRow>(`SELECT * FROM pipeline_jobs WHERE id = ?${db.forUpdate}`, [id]);
 *   await tx.run('UPDATE pipeline_jobs SET status = ? WHERE id = ?', ['failed', id]);
 *   return row;
 * });
 */
export interface SqlDatabase extends SqlClient {
  /**
   * Runs `work` in one write transaction: SQLite's `BEGIN IMMEDIATE` (the file's write lock taken
   * up front; the process's other statements wait), PostgreSQL's `BEGIN` on one pooled
   * connection. Commits what `work` returns; rolls back when it throws.
   */
  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T>;
  /**
   * What to append to a `SELECT` that reads rows a transaction is about to change, so a concurrent
   * transaction waits (PostgreSQL `FOR UPDATE`); empty on SQLite, whose write lock covers it.
   */
  readonly forUpdate: string;
  /** Like {@link forUpdate}, but a row another transaction holds is passed over (`FOR UPDATE SKIP LOCKED`). */
  readonly forUpdateSkipLocked: string;
  /**
   * Tells every process listening on `channel` (through {@link SqlDatabase.listen}) that something
   * changed: once `tx` commits, or at once when `tx` is null. The payload stays under 8000 bytes.
   * A no-op on SQLite: one host, and its workers poll the file.
   */
  notify(tx: SqlClient | null, channel: string, payload: string): Promise<void>;
  /**
   * Calls `listener` with each payload sent on `channel` by any process, this one included.
   * Returns the function that stops listening. A no-op on SQLite.
   */
  listen(channel: string, listener: (payload: string) => void): Promise<() => void>;
  /**
   * Marks, inside `tx`, that something a session shows changed (a switch, a trust decision): once
   * `tx` commits, {@link SqlDatabase.sessionStamp} moves in every process on this database (on
   * PostgreSQL the shared counter is taken just before the commit, never mid-transaction). A no-op
   * on SQLite, whose stamp moves with every commit to the file anyway.
   */
  sessionChanged(tx: SqlClient): Promise<void>;
  /**
   * A cheap string that moves whenever what a session shows may have changed in this database:
   * SQLite's commit counters of the file; on PostgreSQL a shared counter, bumped by
   * {@link SqlDatabase.sessionChanged} and kept in memory from `LISTEN` (read again whenever the
   * listening connection is made again, and a new value at every call while there is none). Synchronous:
   * a long-running process asks it before trusting what it derived from a session.
   */
  sessionStamp(): string;
}
export const SqlDatabase = token<SqlDatabase>('db.sql');

/**
 * A schema change for one engine, contributed by the package that owns the tables beside its
 * SQLite twin. Ids are numbered per engine (`jobs/pg-001-queue`) and never change once shipped;
 * each runs once, in registration order, under an advisory lock so servers starting together
 * apply it once.
 *
 * @example
 * contribute(container, PostgresMigrations, { id: 'jobs/pg-001-queue', sql: 'CREATE TABLE pipeline_jobs (...)' });
 */
export interface PostgresMigration {
  readonly id: string;
  readonly sql: string;
}
export const PostgresMigrations = token<PostgresMigration>('db.postgresMigrations');

/**
 * Where Loadout keeps its tables: `LOADOUT_DATABASE_URL` (or `--database-url`) names a PostgreSQL
 * database; unset, the SQLite file in the data folder.
 */
export interface DatabaseLocation {
  /** A `postgres://` or `postgresql://` URL, or null for the SQLite file. */
  readonly url: string | null;
}
export const DatabaseLocation = token<DatabaseLocation>('db.location');

/** The variable that puts every table on PostgreSQL. */
export const DATABASE_URL_VARIABLE = 'LOADOUT_DATABASE_URL';

/**
 * The database location a URL names: null for an empty or missing one (the SQLite file), else the
 * URL itself once it is a `postgres://` or `postgresql://` URL.
 *
 * @throws InvalidInputError `DATABASE_URL_INVALID` for anything else (the URL's password is never repeated)
 */
export function databaseLocationOf(url: string | undefined): DatabaseLocation {
  if (url === undefined || url === '') return { url: null };
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (parsed === null || (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') || parsed.hostname === '') {
    throw new InvalidInputError(
      'DATABASE_URL_INVALID',
      `the database URL must be postgres://user@host:port/database, got "${redactCredentials(url).slice(0, 200)}"; leave ${DATABASE_URL_VARIABLE} unset to keep the SQLite file`,
    );
  }
  return { url };
}
