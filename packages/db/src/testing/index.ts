import { randomBytes } from 'node:crypto';
import { testdir } from '@loadout/files/testing';
import pg from 'pg';
import { type Migration, openDatabase } from '../Database.js';
import { PostgresSqlDatabase } from '../PostgresSqlDatabase.js';
import type { PostgresMigration, SqlDatabase } from '../SqlDatabase.js';
import { SqliteSqlDatabase } from '../SqliteSqlDatabase.js';

/**
 * The PostgreSQL server the tests may use: `LOADOUT_TEST_DATABASE_URL`, which the test command sets
 * after starting a throw-away cluster (`scripts/ensure-postgres.sh`).
 */
export const TEST_DATABASE_URL = process.env.LOADOUT_TEST_DATABASE_URL ?? '';

/** A database a contract test runs against, opened fresh for each test and dropped by `close`. */
export interface TestSqlDatabase {
  readonly db: SqlDatabase;
  /** A second connection to the same database, as another process or host would have. */
  another(): Promise<SqlDatabase>;
  close(): Promise<void>;
}

/** One engine a store's contract tests run on. */
export interface SqlBackend {
  readonly name: 'sqlite' | 'postgres';
  /** False (with the reason said once, loudly) when no PostgreSQL server was started for the tests. */
  readonly available: boolean;
  open(sqlite: readonly Migration[], postgres: readonly PostgresMigration[]): Promise<TestSqlDatabase>;
}

const sqlite: SqlBackend = {
  name: 'sqlite',
  available: true,
  open: async (migrations) => {
    const dir = testdir();
    const handles = [openDatabase(dir, migrations)];
    return {
      db: new SqliteSqlDatabase(handles[0] as ReturnType<typeof openDatabase>),
      another: async () => {
        const handle = openDatabase(dir, migrations);
        handles.push(handle);
        return new SqliteSqlDatabase(handle);
      },
      close: async () => {
        for (const handle of handles) handle.close();
      },
    };
  },
};

/**
 * Each test gets its own schema on the test server (`search_path` set per connection), so tests
 * in parallel never see each other's rows, and dropping the schema removes everything.
 */
const postgres: SqlBackend = {
  name: 'postgres',
  available: TEST_DATABASE_URL !== '',
  open: async (_sqlite, migrations) => {
    const schema = `test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA ${schema}`);
    } finally {
      await admin.end();
    }
    const url = inSchema(TEST_DATABASE_URL, schema);
    const opened = [new PostgresSqlDatabase(url, migrations)];
    return {
      db: opened[0] as PostgresSqlDatabase,
      another: async () => {
        const db = new PostgresSqlDatabase(url, migrations);
        opened.push(db);
        return db;
      },
      close: async () => {
        for (const db of opened) await db.close();
        const cleanup = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await cleanup.connect();
        try {
          await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
        } finally {
          await cleanup.end();
        }
      },
    };
  },
};

/** The URL with every connection's `search_path` set to `schema`. */
export function inSchema(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.toString();
}

/**
 * The engines a contract test matrix runs on: SQLite always, PostgreSQL when the test command
 * started one. Use with `describe.each(sqlBackends)` and skip the unavailable leg with
 * {@link backendSkipReason}.
 */
export const sqlBackends: readonly SqlBackend[] = [sqlite, postgres];

let warned = false;

/** Why `backend` cannot run here, said once on stderr so a skipped PostgreSQL leg is never silent; null when it can. */
export function backendSkipReason(backend: SqlBackend): string | null {
  if (backend.available) return null;
  const reason =
    'LOADOUT_TEST_DATABASE_URL is not set, so the PostgreSQL leg of the store contract tests is SKIPPED (run `pnpm test`, which starts a cluster)';
  if (!warned) {
    warned = true;
    process.stderr.write(`\n*** ${reason} ***\n\n`);
  }
  return reason;
}

/**
 * The session stamp of `db` once it is known and differs from `from` (on PostgreSQL it moves when
 * another connection's change is announced, a few milliseconds after its commit).
 *
 * @throws Error when it has not moved after `timeoutMs`
 */
export async function sessionStampMoved(db: SqlDatabase, from: string, timeoutMs = 5000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const stamp = db.sessionStamp();
    if (stamp !== from && !stamp.includes(':unknown')) return stamp;
    if (Date.now() > deadline) throw new Error(`the session stamp stayed ${stamp}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

/** The session stamp of `db` once it is known (PostgreSQL reads the shared counter after its listener connects). */
export function knownSessionStamp(db: SqlDatabase): Promise<string> {
  return sessionStampMoved(db, '');
}
