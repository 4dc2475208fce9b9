import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, type Migration, openDatabase } from '../../src/Database.js';
import { DATABASE_FILE } from '../../src/Database.js';

/**
 * Hostile data folders: a database that is empty, damaged or open to other users. Each case
 * names the issue-11 item it covers.
 */

afterEach(removeTestdirs);

const notes: Migration = { id: 'test/001-notes', sql: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)' };
const open: Database[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

function openIn(dataDir: string): Database {
  const db = openDatabase(dataDir, [notes]);
  open.push(db);
  return db;
}

const modeOf = (target: string) => fs.statSync(target).mode & 0o777;

describe('hostile data folders', () => {
  it('11.8 a new data folder is 0700 and the database files in it 0600', () => {
    const dataDir = path.join(testdir({}), 'home/.loadout');
    const db = openIn(dataDir);
    db.prepare('INSERT INTO notes (text) VALUES (?)').run('kept');
    expect(modeOf(dataDir)).toBe(0o700);
    const files = fs.readdirSync(dataDir);
    expect(files).toContain(DATABASE_FILE);
    for (const name of files) expect(`${name} ${modeOf(path.join(dataDir, name)).toString(8)}`).toBe(`${name} 600`);
  });

  it('11.8 an existing data folder and database open to others are narrowed', () => {
    const dataDir = path.join(testdir({}), '.loadout');
    openIn(dataDir).close();
    open.pop();
    fs.chmodSync(dataDir, 0o755);
    fs.chmodSync(path.join(dataDir, DATABASE_FILE), 0o644);
    openIn(dataDir);
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(path.join(dataDir, DATABASE_FILE))).toBe(0o600);
  });

  it('11.20 a 0-byte database is refused, never silently made a new empty one', () => {
    const dataDir = testdir({ [DATABASE_FILE]: '' });
    expect(() => openIn(dataDir)).toThrow(expect.objectContaining({ code: 'DATABASE_EMPTY' }));
    expect(() => openIn(dataDir)).toThrow(/loadout\.db is empty \(0 bytes\).*nothing was changed/);
    expect(fs.statSync(path.join(dataDir, DATABASE_FILE)).size).toBe(0);
    expect(fs.readdirSync(dataDir)).toEqual([DATABASE_FILE]);
  });

  it('11.20 a damaged database is a clear error that changes nothing', () => {
    const garbage = Buffer.from('this is not a database '.repeat(300));
    const dataDir = testdir({ [DATABASE_FILE]: garbage });
    let thrown: unknown;
    try {
      openIn(dataDir);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'DATABASE_CORRUPT', category: 'failed' });
    expect((thrown as Error).message).toMatch(/loadout\.db is not a Loadout database or is damaged/);
    expect((thrown as Error).cause).toMatchObject({ code: 'SQLITE_NOTADB' });
    expect(fs.readFileSync(path.join(dataDir, DATABASE_FILE)).equals(garbage)).toBe(true);
  });

  it('11.20 a database path that is a folder is a clear error', () => {
    const dataDir = testdir({ [DATABASE_FILE]: {} });
    expect(() => openIn(dataDir)).toThrow(
      expect.objectContaining({ code: 'DATABASE_UNAVAILABLE', message: expect.stringMatching(/is a folder/) }),
    );
  });

  it('11.20 a new database appears whole: a crash while it is made leaves nothing to mistake for it', () => {
    const dataDir = path.join(testdir({}), '.loadout');
    openIn(dataDir);
    // What was made aside (and linked into place once migrated) is gone; only the database stays.
    expect(fs.readdirSync(dataDir).filter((name) => !name.startsWith(DATABASE_FILE))).toEqual([]);
    const again = openIn(dataDir);
    expect(again.prepare("SELECT name FROM sqlite_master WHERE name = 'notes'").get()).toEqual({ name: 'notes' });
  });
});
