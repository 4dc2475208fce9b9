import { removeTestdirs } from '@loadout/files/testing';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresSqlDatabase } from './PostgresSqlDatabase.js';
import type { SqlDatabase } from './SqlDatabase.js';
import {
  backendSkipReason,
  inSchema,
  knownSessionStamp,
  sessionStampMoved,
  sqlBackends,
  TEST_DATABASE_URL,
  type TestSqlDatabase,
} from './testing/index.js';

const things = {
  sqlite: { id: 'test/001-things', sql: 'CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT)' },
  postgres: { id: 'test/pg-001-things', sql: 'CREATE TABLE things (id SERIAL PRIMARY KEY, name TEXT)' },
};

/** A session change as a store writes one: a row and the mark, in one transaction. */
async function change(db: SqlDatabase, name: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.run('INSERT INTO things (name) VALUES (?)', [name]);
    await db.sessionChanged(tx);
  });
}

// The session stamp's contract, on every engine: a change another process commits moves it.
describe.each(sqlBackends)('the session stamp on $name', (backend) => {
  const skip = backendSkipReason(backend);
  let opened: TestSqlDatabase;

  beforeEach(async () => {
    if (skip !== null) return;
    opened = await backend.open([things.sqlite], [things.postgres]);
  });
  afterEach(async () => {
    if (skip !== null) return;
    await opened.close();
    removeTestdirs();
  });

  it.skipIf(skip !== null)('moves in this process at once when it commits a session change', async () => {
    const before = await knownSessionStamp(opened.db);
    await change(opened.db, 'a');
    expect(opened.db.sessionStamp()).not.toBe(before);
  });

  it.skipIf(skip !== null)(
    'moves when another process (or host) commits a session change, and stays still with reads and rollbacks',
    async () => {
      const other = await opened.another();
      const before = await knownSessionStamp(opened.db);
      await other.query('SELECT * FROM things');
      await expect(
        other.transaction(async (tx) => {
          await tx.run('INSERT INTO things (name) VALUES (?)', ['never']);
          await other.sessionChanged(tx);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      // Long enough for a notification to arrive, had one been sent.
      await new Promise((done) => setTimeout(done, 200));
      expect(opened.db.sessionStamp()).toBe(before);
      // A write no session reads (a job row) is not a session change.
      await other.transaction(async (tx) => tx.run('INSERT INTO things (name) VALUES (?)', ['a job row']));
      await other.run('INSERT INTO things (name) VALUES (?)', ['another']);
      await new Promise((done) => setTimeout(done, 200));
      expect(opened.db.sessionStamp()).toBe(before);
      await change(other, 'b');
      const after = await sessionStampMoved(opened.db, before);
      expect(after).not.toBe(before);
      expect(opened.db.sessionStamp()).toBe(after);
    },
  );
});

describe('the session stamp on postgres, when its listening connection drops', () => {
  const postgres = sqlBackends.find((backend) => backend.name === 'postgres');
  const skip = postgres === undefined ? 'no PostgreSQL backend' : backendSkipReason(postgres);
  let opened: TestSqlDatabase;
  let follower: PostgresSqlDatabase;
  const application = `loadout-stamp-${process.pid}-${Date.now().toString(36)}`;

  beforeEach(async () => {
    if (skip !== null || postgres === undefined) return;
    opened = await postgres.open([], [things.postgres]);
    const schema = ((await opened.db.queryOne<{ schema: string }>('SELECT current_schema() AS schema')) as { schema: string }).schema;
    // A server of its own name, so the test can cut exactly its listening connection.
    const url = new URL(inSchema(TEST_DATABASE_URL, schema));
    url.searchParams.set('application_name', application);
    follower = new PostgresSqlDatabase(url.toString(), [things.postgres]);
  });
  afterEach(async () => {
    if (skip !== null) return;
    await follower.close();
    await opened.close();
  });

  it.skipIf(skip !== null)(
    'is unknown while nobody listens and reads the counter again on reconnecting: a change made in the gap is not missed',
    async () => {
      const before = await knownSessionStamp(follower);
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      try {
        const cut = await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'",
          [application],
        );
        expect(cut.rowCount).toBe(1);
      } finally {
        await admin.end();
      }
      // While nobody listens, the stamp is new at every call: nothing derived in the gap is kept.
      const deadline = Date.now() + 5000;
      while (!follower.sessionStamp().includes(':unknown') && Date.now() < deadline) await new Promise((done) => setTimeout(done, 5));
      expect(follower.sessionStamp()).not.toBe(follower.sessionStamp());
      // Made while the follower's listener is gone: its notification reaches nobody there.
      await change(opened.db, 'in the gap');
      const after = await sessionStampMoved(follower, before);
      const counter = (await opened.db.queryOne<{ stamp: number }>('SELECT stamp FROM session_change_stamp'))?.stamp;
      expect(after.endsWith(`:${counter}`)).toBe(true);
    },
  );

  it.skipIf(skip !== null)(
    'takes the shared counter only as a transaction commits, so two servers writing the same row never deadlock through it',
    async () => {
      const upsert = 'INSERT INTO things (id, name) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name';
      let bWrote: () => void = () => undefined;
      const wrote = new Promise<void>((done) => (bWrote = done));
      // A marks its change first, then writes the row B holds; B, holding the row, marks its change.
      const a = opened.db.transaction(async (tx) => {
        await opened.db.sessionChanged(tx);
        await wrote;
        await tx.run(upsert, ['a']);
      });
      const b = follower.transaction(async (tx) => {
        await tx.run(upsert, ['b']);
        bWrote();
        await new Promise((done) => setTimeout(done, 200));
        await follower.sessionChanged(tx);
      });
      await expect(Promise.all([a, b])).resolves.toBeDefined();
      expect((await opened.db.queryOne<{ name: string }>('SELECT name FROM things WHERE id = 1'))?.name).toBe('a');
      expect((await opened.db.queryOne<{ stamp: number }>('SELECT stamp FROM session_change_stamp'))?.stamp).toBe(2);
    },
  );
});
