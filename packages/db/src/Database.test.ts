import { removeTestdirs, testdir } from '@loadout/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseChangeStamp, openDatabase, writeTransaction } from './Database.js';

afterEach(removeTestdirs);

const migrations = [{ id: 'test/001-things', sql: 'CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT)' }];

describe('databaseChangeStamp', () => {
  it("changes with this connection's commits and with another connection's, and not with reads", () => {
    const dir = testdir();
    const mine = openDatabase(dir, migrations);
    const other = openDatabase(dir, migrations);
    try {
      const first = databaseChangeStamp(mine);
      mine.prepare('SELECT * FROM things').all();
      expect(databaseChangeStamp(mine)).toBe(first);

      writeTransaction(mine, () => mine.prepare("INSERT INTO things (name) VALUES ('a')").run());
      const afterOwn = databaseChangeStamp(mine);
      expect(afterOwn).not.toBe(first);

      writeTransaction(other, () => other.prepare("UPDATE things SET name = 'b'").run());
      const afterOther = databaseChangeStamp(mine);
      expect(afterOther).not.toBe(afterOwn);
      expect(databaseChangeStamp(mine)).toBe(afterOther);
    } finally {
      mine.close();
      other.close();
    }
  });
});
