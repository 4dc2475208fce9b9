import { removeTestdirs, testdir } from '@loadout/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { markSessionChanged, openDatabase, sessionChangeCounter, writeTransaction } from './Database.js';

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
