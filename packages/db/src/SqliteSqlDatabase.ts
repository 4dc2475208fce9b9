import type BetterSqlite3 from 'better-sqlite3';
import { type Database, markSessionChanged, sessionChangeCounter } from './Database.js';
import type { SqlClient, SqlDatabase } from './SqlDatabase.js';

/**
 * Whose turn it is on each database file in this process. Shared by every connection to a file:
 * a second connection's `BEGIN IMMEDIATE` would otherwise wait for the first's lock synchronously,
 * blocking the event loop the first needs to commit.
 */
const turns = new Map<string, Promise<void>>();

/**
 * The {@link SqlDatabase} over the data folder's SQLite file. better-sqlite3 is synchronous, so the
 * process's statements on a file take turns: a transaction holds the turn from `BEGIN IMMEDIATE`
 * to `COMMIT`, and no other caller's statement can land inside it while its work awaits. Across
 * processes the file's write lock does the same.
 */
export class SqliteSqlDatabase implements SqlDatabase {
  readonly dialect = 'sqlite' as const;
  readonly forUpdate = '';
  readonly forUpdateSkipLocked = '';
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private readonly client: SqlClient;

  constructor(private readonly db: Database) {
    this.client = {
      dialect: 'sqlite',
      query: async <R>(sql: string, params: readonly unknown[] = []) => this.all<R>(sql, params),
      queryOne: async <R>(sql: string, params: readonly unknown[] = []) => this.all<R>(sql, params)[0],
      run: async (sql: string, params: readonly unknown[] = []) => this.prepared(sql).run(...params).changes,
    };
  }

  query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return this.inTurn(() => this.all<R>(sql, params));
  }

  queryOne<R>(sql: string, params: readonly unknown[] = []): Promise<R | undefined> {
    return this.inTurn(() => this.all<R>(sql, params)[0]);
  }

  run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return this.inTurn(() => this.prepared(sql).run(...params).changes);
  }

  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    return this.inTurn(async () => {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(this.client);
        this.db.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  async notify(): Promise<void> {}

  async listen(): Promise<() => void> {
    return () => undefined;
  }

  async sessionChanged(): Promise<void> {
    // Called inside a transaction, which holds this file's turn: the bump lands in it.
    markSessionChanged(this.db);
  }

  sessionStamp(): string {
    return sessionChangeCounter(this.db);
  }

  private all<R>(sql: string, params: readonly unknown[]): R[] {
    const statement = this.prepared(sql);
    if (statement.reader) return statement.all(...params) as R[];
    statement.run(...params);
    return [];
  }

  private prepared(sql: string): BetterSqlite3.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs `work` once every earlier caller's work is done, so one transaction is never interleaved. */
  private inTurn<T>(work: () => T | Promise<T>): Promise<T> {
    const file = this.db.name;
    const result = (turns.get(file) ?? Promise.resolve()).then(work);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    turns.set(file, settled);
    void settled.then(() => {
      if (turns.get(file) === settled) turns.delete(file);
    });
    return result;
  }
}
