import { redactCredentials } from '@loadout/kernel';
import { isLoadoutError } from '@loadout/files';
import type pg from 'pg';
import { DatabaseError, DatabaseUnreachableError } from './Database.js';
import type { PostgresMigration, SqlClient, SqlDatabase } from './SqlDatabase.js';

/** The advisory lock every Loadout process takes while it migrates ("LOAD" in ASCII). */
const MIGRATION_LOCK = 0x4c4f4144;

/**
 * How long a statement may wait for a connection, and how long a statement may go unanswered,
 * before it fails with `DATABASE_UNAVAILABLE` (HTTP 503): a server that cannot reach PostgreSQL
 * answers that at once rather than holding every request (and its socket) until it comes back.
 */
export const CONNECT_TIMEOUT_MS = 5_000;
export const STATEMENT_TIMEOUT_MS = 15_000;
/** How many statements may wait for one of the pool's connections; past that, refused at once. */
export const MAX_WAITING_STATEMENTS = 100;

/** How long a listener waits before it connects again after losing its connection. */
const RELISTEN_DELAY_MS = 500;

/** The channel a committed session change is announced on, with the shared counter's new value. */
const SESSION_CHANNEL = 'loadout_session_changes';

/**
 * The database's own table, made before any store's: one row counting the commits that changed
 * what a session shows, so every server can tell its sessions went stale.
 */
const SESSION_STAMP_MIGRATION: PostgresMigration = {
  id: 'db/pg-001-session-change-stamp',
  sql: `CREATE TABLE session_change_stamp (id INTEGER PRIMARY KEY CHECK (id = 1), stamp BIGINT NOT NULL);
  INSERT INTO session_change_stamp (id, stamp) VALUES (1, 0);`,
};

let library: Promise<typeof pg> | null = null;

/** The PostgreSQL client library, loaded on first use: a command on the SQLite file never evaluates it. */
function loadPg(): Promise<typeof pg> {
  library ??= import('pg').then((loaded) => loaded.default);
  return library;
}

/**
 * The {@link SqlDatabase} on a PostgreSQL server, shared by every Loadout process that names it.
 * A pool of connections; a transaction pins one. Pending migrations run on first use, inside one
 * transaction under `pg_advisory_xact_lock`, so servers that start together apply each one once.
 * `bigint` columns (ids, epoch milliseconds) come back as numbers, as they do from SQLite.
 */
export class PostgresSqlDatabase implements SqlDatabase {
  readonly dialect = 'postgres' as const;
  readonly forUpdate = ' FOR UPDATE';
  readonly forUpdateSkipLocked = ' FOR UPDATE SKIP LOCKED';
  private pooled: Promise<pg.Pool> | null = null;
  private ready: Promise<void> | null = null;
  private listener: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private readonly channels = new Map<string, Set<(payload: string) => void>>();
  private closed = false;
  /** Whether this process follows the shared session counter yet (from the first {@link sessionStamp}). */
  private followingSessions = false;
  /** The shared session counter as last seen, or null while no connection listens (or it is being read). */
  private sessionCounter: number | null = null;
  /** Moves each time the listening connection is lost or made again, so a value is never trusted across a gap. */
  private listenEpoch = 0;
  /** How many stamps were given while the counter was unknown. */
  private unknownStamps = 0;
  /** The open transactions that changed what a session shows: the counter moves as they commit. */
  private readonly sessionChanges = new WeakMap<SqlClient, boolean>();

  constructor(
    private readonly url: string,
    private readonly migrations: readonly PostgresMigration[],
  ) {}

  /** The pool, made on first use. */
  private pool(): Promise<pg.Pool> {
    this.pooled ??= loadPg().then((lib) => {
      // Idle connections never keep the process alive: a server that stops exits.
      const pool = new lib.Pool({
        connectionString: this.url,
        max: 10,
        allowExitOnIdle: true,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        query_timeout: STATEMENT_TIMEOUT_MS,
        types: { getTypeParser: typeParserOf(lib) },
      });
      // An idle pooled connection that drops is replaced on next use; without a listener the pool
      // would throw from an event and end the process.
      pool.on('error', () => undefined);
      return pool;
    });
    return this.pooled;
  }

  async query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    await this.migrated();
    return (await this.pooledQuery(sql, params)).rows as R[];
  }

  async queryOne<R>(sql: string, params: readonly unknown[] = []): Promise<R | undefined> {
    return (await this.query<R>(sql, params))[0];
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    await this.migrated();
    return (await this.pooledQuery(sql, params)).rowCount ?? 0;
  }

  /** One statement on a pooled connection, within the bounds above; what cannot reach the server is `DATABASE_UNAVAILABLE`. */
  private async pooledQuery(sql: string, params: readonly unknown[]): Promise<pg.QueryResult> {
    const pool = await this.waitablePool();
    try {
      return await pool.query(numbered(sql), [...params]);
    } catch (error) {
      throw unreachable(this.url, error);
    }
  }

  /** The pool, unless too many statements already wait for it. */
  private async waitablePool(): Promise<pg.Pool> {
    const pool = await this.pool();
    if (pool.waitingCount >= MAX_WAITING_STATEMENTS) {
      throw new DatabaseUnreachableError(
        `the PostgreSQL database ${redactCredentials(this.url)} is not answering: ${pool.waitingCount} statements already wait for it`,
      );
    }
    return pool;
  }

  async transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    await this.migrated();
    return this.inTransaction(work);
  }

  async notify(tx: SqlClient | null, channel: string, payload: string): Promise<void> {
    await (tx ?? this).query('SELECT pg_notify(?, ?)', [channel, payload]);
  }

  async listen(channel: string, listener: (payload: string) => void): Promise<() => void> {
    let listeners = this.channels.get(channel);
    if (listeners === undefined) {
      listeners = new Set();
      this.channels.set(channel, listeners);
      const client = await this.listeningClient();
      await client.query(`LISTEN ${quoteIdentifier(channel)}`);
    }
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }

  async sessionChanged(tx: SqlClient): Promise<void> {
    if (this.sessionChanges.has(tx)) this.sessionChanges.set(tx, true);
    else this.sessionCounterSeen(await this.transaction((own) => this.bumpSessionCounter(own)));
  }

  sessionStamp(): string {
    if (!this.followingSessions) {
      this.followingSessions = true;
      // Once listening, the row is read; a connection made again later reads it again.
      void this.listen(SESSION_CHANNEL, (payload) => this.sessionCounterSeen(Number(payload))).then(
        () => this.readSessionCounter(),
        () => this.retryListen(),
      );
    }
    // Unknown, it is a new value at every call: nothing derived meanwhile is kept as current.
    if (this.sessionCounter === null) return `pg${this.listenEpoch}:unknown-${(this.unknownStamps += 1)}`;
    return `pg${this.listenEpoch}:${this.sessionCounter}`;
  }

  /** Closes the pool and the listening connection; pending statements finish first. */
  async close(): Promise<void> {
    this.closed = true;
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
    await (await this.pooled)?.end();
  }

  private async inTransaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    const pool = await this.waitablePool();
    let connection: pg.PoolClient;
    try {
      connection = await pool.connect();
    } catch (error) {
      throw unreachable(this.url, error);
    }
    const statement = async (sql: string, params: readonly unknown[] = []): Promise<pg.QueryResult> => {
      try {
        return await connection.query(numbered(sql), [...params]);
      } catch (error) {
        throw unreachable(this.url, error);
      }
    };
    const tx: SqlClient = {
      dialect: 'postgres',
      query: async <R>(sql: string, params: readonly unknown[] = []) => (await statement(sql, params)).rows as R[],
      queryOne: async <R>(sql: string, params: readonly unknown[] = []) => (await statement(sql, params)).rows[0] as R | undefined,
      run: async (sql: string, params: readonly unknown[] = []) => (await statement(sql, params)).rowCount ?? 0,
    };
    let broken: Error | undefined;
    try {
      await statement('BEGIN');
      this.sessionChanges.set(tx, false);
      const result = await work(tx);
      // The shared row is taken last, just before the commit: a transaction holding it waits on
      // nothing else, so two servers' writes never deadlock through it.
      const changed = this.sessionChanges.get(tx) === true ? await this.bumpSessionCounter(tx) : null;
      await statement('COMMIT');
      // This process sees its own change at once, not when its notification comes back.
      if (changed !== null) this.sessionCounterSeen(changed);
      return result;
    } catch (error) {
      await connection.query('ROLLBACK').catch((rollback: Error) => {
        broken = rollback;
      });
      throw error;
    } finally {
      connection.release(broken);
    }
  }

  private migrated(): Promise<void> {
    this.ready ??= this.migrate().catch((error: unknown) => {
      this.ready = null;
      throw new DatabaseUnreachableError(`cannot use the PostgreSQL database ${redactCredentials(this.url)} (${errorText(error)})`, {
        cause: error,
      });
    });
    return this.ready;
  }

  private async migrate(): Promise<void> {
    await this.inTransaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(?)', [MIGRATION_LOCK]);
      await tx.run('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
      const applied = new Set((await tx.query<{ id: string }>('SELECT id FROM schema_migrations')).map((row) => row.id));
      for (const migration of [SESSION_STAMP_MIGRATION, ...this.migrations]) {
        if (applied.has(migration.id)) continue;
        await tx.run(migration.sql);
        await tx.run('INSERT INTO schema_migrations (id) VALUES (?)', [migration.id]);
      }
    });
  }

  /** The one connection this process listens on; made again (and every channel listened to again) when it drops. */
  private listeningClient(): Promise<pg.Client> {
    if (this.listener !== null) return Promise.resolve(this.listener);
    this.connecting ??= (async () => {
      const client = new (await loadPg()).Client({ connectionString: this.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
      client.on('notification', (message) => {
        for (const listener of this.channels.get(message.channel) ?? []) listener(message.payload ?? '');
      });
      client.on('error', () => this.dropListener(client));
      client.on('end', () => this.dropListener(client));
      await client.connect();
      // Listening never keeps the process alive either.
      (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
      for (const channel of this.channels.keys()) await client.query(`LISTEN ${quoteIdentifier(channel)}`);
      this.listener = client;
      if (this.followingSessions) this.readSessionCounter();
      return client;
    })().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private dropListener(client: pg.Client): void {
    if (this.listener !== client) return;
    this.listener = null;
    // Changes announced while nobody listens are lost: the stamp is unknown until the row is read again.
    this.listenEpoch += 1;
    this.sessionCounter = null;
    this.retryListen();
  }

  /** Moves the shared counter inside `tx` and announces its new value on commit; returns it. */
  private async bumpSessionCounter(tx: SqlClient): Promise<number> {
    const row = await tx.queryOne<{ stamp: number }>('UPDATE session_change_stamp SET stamp = stamp + 1 WHERE id = 1 RETURNING stamp');
    if (row === undefined)
      throw new DatabaseError('DATABASE_UNAVAILABLE', 'the session change stamp row is missing from the PostgreSQL database');
    await this.notify(tx, SESSION_CHANNEL, String(row.stamp));
    return row.stamp;
  }

  /**
   * Reads the shared counter once a connection listens (again). A change committed after the
   * `LISTEN` arrives as a notification; one committed before it is in the row.
   */
  private readSessionCounter(): void {
    this.listenEpoch += 1;
    this.sessionCounter = null;
    const epoch = this.listenEpoch;
    void this.queryOne<{ stamp: number }>('SELECT stamp FROM session_change_stamp WHERE id = 1').then(
      (row) => {
        if (epoch === this.listenEpoch && row !== undefined) this.sessionCounter = Math.max(this.sessionCounter ?? 0, row.stamp);
      },
      () => {
        if (epoch !== this.listenEpoch || this.closed) return;
        const again = setTimeout(() => epoch === this.listenEpoch && this.readSessionCounter(), RELISTEN_DELAY_MS);
        again.unref();
      },
    );
  }

  /** A counter value announced or committed here: the stamp only moves forward, and only while it is known. */
  private sessionCounterSeen(value: number): void {
    if (this.sessionCounter !== null && Number.isFinite(value) && value > this.sessionCounter) this.sessionCounter = value;
  }

  /** Notifications sent while no connection listens are lost: the listeners' callers keep a slow poll for that. */
  private retryListen(): void {
    if (this.closed) return;
    const again = setTimeout(() => void this.listeningClient().catch(() => this.retryListen()), RELISTEN_DELAY_MS);
    again.unref();
  }
}

/** `int8` (ids, counts, epoch milliseconds) as a number, as SQLite gives it: Loadout's stay below 2^53. */
function typeParserOf(lib: typeof pg): (oid: number, format?: 'text' | 'binary') => (value: string) => unknown {
  return (oid, format) => {
    if (oid === lib.types.builtins.INT8) return Number;
    return lib.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
  };
}

/** `?` placeholders as `$1…`, leaving quoted text alone. */
export function numbered(sql: string): string {
  let index = 0;
  let quoted = false;
  let out = '';
  for (const char of sql) {
    if (char === "'") quoted = !quoted;
    if (char === '?' && !quoted) {
      index += 1;
      out += `$${index}`;
    } else {
      out += char;
    }
  }
  return out;
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * What a failed statement becomes: the server's own refusal (a constraint, a syntax error: it has
 * a SQLSTATE) as it is, and anything that says the server did not answer (no connection, a
 * timeout, a dropped connection, a server shutting down or out of connections) as
 * `DATABASE_UNAVAILABLE`.
 */
function unreachable(url: string, error: unknown): unknown {
  if (error instanceof DatabaseUnreachableError || isLoadoutError(error)) return error;
  const sqlState = (error as { code?: unknown }).code;
  const answered = typeof sqlState === 'string' && /^[0-9A-Z]{5}$/.test(sqlState) && !/^(08|53|57)/.test(sqlState);
  if (answered || !(error instanceof Error)) return error;
  return new DatabaseUnreachableError(`the PostgreSQL database ${redactCredentials(url)} is not answering (${errorText(error)})`, {
    cause: error,
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
}
