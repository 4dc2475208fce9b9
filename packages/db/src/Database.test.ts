import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { markSessionChanged, nativeModuleMismatch, openDatabase, sessionChangeCounter, writeTransaction } from './Database.js';

afterEach(removeTestdirs);

const migrations = [{ id: 'test/001-things', sql: 'CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT)' }];

describe('the session counter', () => {
  it("moves with this connection's and another connection's marked commits, and not with reads, other writes or rollbacks", () => {
    const dir = testdir();
    const mine = openDatabase(dir, migrations);
    const other = openDatabase(dir, migrations);
    try {
      const first = sessionChangeCounter(mine);
      mine.prepare('SELECT * FROM things').all();
      writeTransaction(other, () => other.prepare("INSERT INTO things (name) VALUES ('a job row')").run());
      expect(sessionChangeCounter(mine)).toBe(first);

      expect(() =>
        writeTransaction(other, () => {
          markSessionChanged(other);
          throw new Error('changed my mind');
        }),
      ).toThrow('changed my mind');
      expect(sessionChangeCounter(mine)).toBe(first);

      writeTransaction(mine, () => {
        mine.prepare("INSERT INTO things (name) VALUES ('a switch')").run();
        markSessionChanged(mine);
      });
      const afterOwn = sessionChangeCounter(mine);
      expect(afterOwn).not.toBe(first);

      writeTransaction(other, () => markSessionChanged(other));
      const afterOther = sessionChangeCounter(mine);
      expect(afterOther).not.toBe(afterOwn);
      expect(sessionChangeCounter(mine)).toBe(afterOther);
    } finally {
      mine.close();
      other.close();
    }
  });
});

describe('opening a database', () => {
  it('takes no write lock when its schema is current: a writer holding the lock does not hold up a reader', () => {
    const dir = testdir();
    openDatabase(dir, migrations).close();
    const writer = new BetterSqlite3(path.join(dir, 'loadout.db'));
    writer.exec('BEGIN IMMEDIATE');
    try {
      // With the write lock taken elsewhere, a migration pass would wait (and fail with SQLITE_BUSY).
      const started = Date.now();
      const reader = openDatabase(dir, migrations);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(reader.prepare('SELECT COUNT(*) AS n FROM things').get()).toEqual({ n: 0 });
      reader.close();
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
  });

  it('still runs a migration the database has not seen, and only that one', () => {
    const dir = testdir();
    const first = openDatabase(dir, migrations);
    first.prepare("INSERT INTO things (name) VALUES ('kept')").run();
    first.close();
    const behind = [...migrations, { id: 'test/002-more', sql: 'CREATE TABLE more (id INTEGER PRIMARY KEY)' }];
    const db = openDatabase(dir, behind);
    try {
      expect(db.prepare('SELECT id FROM schema_migrations ORDER BY id').pluck().all()).toEqual(['test/001-things', 'test/002-more']);
      expect(db.prepare('SELECT name FROM things').pluck().all()).toEqual(['kept']);
      expect(db.prepare('SELECT COUNT(*) FROM more').pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });

  it('makes a new database whole: migrated, in WAL mode, private, and nothing left beside it', () => {
    const dir = testdir();
    const db = openDatabase(dir, migrations);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.prepare('SELECT id FROM schema_migrations').pluck().all()).toEqual(['test/001-things']);
      expect(db.prepare('SELECT stamp FROM session_change_stamp WHERE id = 1').pluck().get()).toBe(0);
      expect(fs.readdirSync(dir).sort()).toEqual(['loadout.db', 'loadout.db-shm', 'loadout.db-wal']);
      expect(fs.statSync(path.join(dir, 'loadout.db')).mode & 0o777).toBe(0o600);
    } finally {
      db.close();
    }
    // Read as it is on disk, by a connection that sets nothing: the file itself says WAL and holds every table.
    const raw = new BetterSqlite3(path.join(dir, 'loadout.db'), { readonly: true, fileMustExist: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all()).toEqual([
        'schema_migrations',
        'session_change_stamp',
        'things',
      ]);
    } finally {
      raw.close();
    }
  });

  it('leaves nothing of a new database when a migration fails', () => {
    const dir = testdir();
    expect(() => openDatabase(dir, [...migrations, { id: 'test/002-broken', sql: 'CREATE TABLE (' }])).toThrow();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('makes the session counter again when it is missing, even with every migration applied', () => {
    const dir = testdir();
    openDatabase(dir, migrations).close();
    const raw = new BetterSqlite3(path.join(dir, 'loadout.db'));
    raw.exec('DROP TABLE session_change_stamp');
    raw.close();
    const db = openDatabase(dir, migrations);
    try {
      expect(db.prepare('SELECT stamp FROM session_change_stamp WHERE id = 1').pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });
});

describe('a native module built for another Node version', () => {
  it('is retold whole in one line, with the command that rebuilds it in the checkout', () => {
    // Node's own words when it loads an addon of another ABI (lib/internal/modules: dlopen).
    const node = Object.assign(
      new Error(
        "The module '/home/me/loadout/node_modules/.pnpm/better-sqlite3@12.4.1/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\n" +
          'was compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\n' +
          'NODE_MODULE_VERSION 127. Please try re-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).',
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    );
    const error = nativeModuleMismatch(node);
    expect(error?.code).toBe('NATIVE_MODULE_MISMATCH');
    expect(error?.message).not.toContain('\n');
    expect(error?.message).toContain('NODE_MODULE_VERSION 115');
    expect(error?.message).toContain('needs 127');
    expect(error?.message).toContain('`cd /home/me/loadout && pnpm rebuild better-sqlite3`');
    expect(nativeModuleMismatch(new Error('SQLITE_CANTOPEN'))).toBeNull();
  });
});
