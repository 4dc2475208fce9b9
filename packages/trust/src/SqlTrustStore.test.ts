import { backendSkipReason, knownSessionStamp, sessionStampMoved, sqlBackends, type TestSqlDatabase } from '@loadout/db/testing';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqlTrustStore, trustMigration, trustPostgresMigration } from './SqlTrustStore.js';

// The trust store's contract, run on every engine: the same tests, SQLite and PostgreSQL.
describe.each(sqlBackends)('TrustStore on $name', (backend) => {
  const skip = backendSkipReason(backend);
  let opened: TestSqlDatabase;
  let store: SqlTrustStore;

  beforeEach(async () => {
    if (skip !== null) return;
    opened = await backend.open([trustMigration], [trustPostgresMigration]);
    store = new SqlTrustStore(opened.db);
  });
  afterEach(async () => {
    if (skip !== null) return;
    await opened.close();
    removeTestdirs();
  });

  it.skipIf(skip !== null)('trusts a project once, keeping the first date, lists and forgets it', async () => {
    expect(await store.isProjectTrusted('/work/app')).toBe(false);
    const first = await store.trustProject('/work/app');
    expect(first.path).toBe('/work/app');
    expect(await store.isProjectTrusted('/work/app')).toBe(true);
    expect(await store.trustProject('/work/app')).toEqual(first);
    await store.trustProject('/work/a-first');
    expect((await store.listTrustedProjects()).map((entry) => entry.path)).toEqual(['/work/a-first', '/work/app']);
    expect(await store.untrustProject('/work/app')).toBe(true);
    expect(await store.untrustProject('/work/app')).toBe(false);
    expect(await store.isProjectTrusted('/work/app')).toBe(false);
  });

  it.skipIf(skip !== null)(
    "replaces a plugin's approval whole, reads several in one go, and forgets it with its fingerprints",
    async () => {
      expect(await store.approvalOf('acme')).toBeNull();
      await store.approvePlugin(
        'acme',
        'a'.repeat(40),
        new Map([
          ['task/old', 'f0'],
          ['server/acme', 'f1'],
        ]),
      );
      const approval = await store.approvePlugin(
        'acme',
        'b'.repeat(40),
        new Map([
          ['server/acme', 'f2'],
          ['task/report', 'f3'],
        ]),
      );
      expect(await store.approvalOf('acme')).toEqual(approval);
      expect((await store.approvalOf('acme'))?.fingerprints).toEqual(
        new Map([
          ['server/acme', 'f2'],
          ['task/report', 'f3'],
        ]),
      );
      await store.approvePlugin('bare', 'c'.repeat(40), new Map());

      const many = await store.approvalsOf(['acme', 'bare', 'never', 'acme']);
      expect([...many.keys()].sort()).toEqual(['acme', 'bare']);
      expect(many.get('bare')?.fingerprints.size).toBe(0);
      expect(many.get('acme')?.commit).toBe('b'.repeat(40));
      expect((await store.approvalsOf([])).size).toBe(0);

      await store.forgetPlugin('acme');
      expect(await store.approvalOf('acme')).toBeNull();
      expect(await opened.db.query('SELECT * FROM plugin_approved_parts')).toEqual([]);
    },
  );

  it.skipIf(skip !== null)(
    'is one store for every connection, and every decision moves the session stamp another server sees',
    async () => {
      const other = await opened.another();
      const theirs = new SqlTrustStore(other);
      let seen = await knownSessionStamp(other);
      const decisions: (() => Promise<unknown>)[] = [
        () => store.trustProject('/work/app'),
        () => store.approvePlugin('acme', 'a'.repeat(40), new Map([['task/report', 'f1']])),
        () => store.untrustProject('/work/app'),
        () => store.forgetPlugin('acme'),
      ];
      for (const decide of decisions) {
        await decide();
        seen = await sessionStampMoved(other, seen);
      }
      await store.trustProject('/work/shared');
      expect(await theirs.isProjectTrusted('/work/shared')).toBe(true);
    },
  );
});
