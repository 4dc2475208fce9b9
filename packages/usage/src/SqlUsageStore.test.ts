import { backendSkipReason, sqlBackends, type TestSqlDatabase } from '@loadout/db/testing';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqlUsageStore, usageMigration, usagePostgresMigration } from './SqlUsageStore.js';
import { DAY_MS, type UsageEvent } from './UsageStore.js';

const NOW = Date.parse('2026-12-05T12:00:00.000Z');

function use(overrides: Partial<UsageEvent>): UsageEvent {
  return {
    at: NOW,
    runtime: 'claude-code',
    project: '/work/app',
    kind: 'skill',
    name: 'pdf',
    server: null,
    event: 'invoked',
    session: 's1',
    source: 'served',
    ...overrides,
  };
}

// The usage store's contract, run on every engine: the same tests, SQLite and PostgreSQL.
describe.each(sqlBackends)('UsageStore on $name', (backend) => {
  const skip = backendSkipReason(backend);
  let opened: TestSqlDatabase;
  let store: SqlUsageStore;

  beforeEach(async () => {
    if (skip !== null) return;
    opened = await backend.open([usageMigration], [usagePostgresMigration]);
    store = new SqlUsageStore(opened.db);
  });
  afterEach(async () => {
    if (skip !== null) return;
    await opened.close();
    removeTestdirs();
  });

  it.skipIf(skip !== null)(
    'tallies uses per runtime, project and capability: invoked counts failures too, sessions are distinct',
    async () => {
      await store.record([
        use({ at: NOW - 3 * DAY_MS, session: 's1' }),
        use({ at: NOW - 2 * DAY_MS, session: 's2', event: 'failed' }),
        use({ at: NOW - DAY_MS, session: 's2' }),
        use({ runtime: 'codex', session: null }),
        use({ project: null, kind: 'tool', name: 'search', server: 'github', session: 's3' }),
      ]);
      const tallies = await store.tally({ since: NOW - 10 * DAY_MS });
      expect(tallies).toEqual([
        {
          runtime: 'claude-code',
          project: '/work/app',
          kind: 'skill',
          name: 'pdf',
          server: null,
          invoked: 3,
          failed: 1,
          lastUsed: NOW - DAY_MS,
          sessions: 2,
        },
        {
          runtime: 'codex',
          project: '/work/app',
          kind: 'skill',
          name: 'pdf',
          server: null,
          invoked: 1,
          failed: 0,
          lastUsed: NOW,
          sessions: 0,
        },
        {
          runtime: 'claude-code',
          project: null,
          kind: 'tool',
          name: 'search',
          server: 'github',
          invoked: 1,
          failed: 0,
          lastUsed: NOW,
          sessions: 1,
        },
      ]);
      expect(await store.sessionCounts({ since: NOW - 10 * DAY_MS })).toEqual([
        { runtime: 'claude-code', project: null, sessions: 1 },
        { runtime: 'claude-code', project: '/work/app', sessions: 2 },
      ]);
    },
  );

  it.skipIf(skip !== null)('narrows to a window, a runtime and a project (null is the global level alone)', async () => {
    await store.record([
      use({ at: NOW - 40 * DAY_MS, name: 'old' }),
      use({ name: 'recent' }),
      use({ runtime: 'codex', name: 'theirs' }),
      use({ project: null, name: 'global' }),
    ]);
    const names = async (filter: Parameters<SqlUsageStore['tally']>[0]) => (await store.tally(filter)).map((t) => t.name).sort();
    expect(await names({ since: NOW - 30 * DAY_MS })).toEqual(['global', 'recent', 'theirs']);
    expect(await names({ since: NOW - 60 * DAY_MS, runtime: 'codex' })).toEqual(['theirs']);
    expect(await names({ since: NOW - 60 * DAY_MS, project: null })).toEqual(['global']);
    expect(await names({ since: NOW - 60 * DAY_MS, project: '/work/app', runtime: 'claude-code' })).toEqual(['old', 'recent']);
  });

  it.skipIf(skip !== null)('narrows to one kind and to any of several runtimes, none named answering nothing', async () => {
    await store.record([
      use({ name: 'pdf' }),
      use({ runtime: 'codex', name: 'lint' }),
      use({ runtime: 'goose', name: 'chart' }),
      use({ kind: 'task', name: 'deploy' }),
    ]);
    const names = async (filter: Parameters<SqlUsageStore['tally']>[0]) => (await store.tally(filter)).map((t) => t.name).sort();
    expect(await names({ since: 0, kind: 'skill' })).toEqual(['chart', 'lint', 'pdf']);
    expect(await names({ since: 0, kind: 'skill', runtimes: ['claude-code', 'codex'] })).toEqual(['lint', 'pdf']);
    expect(await names({ since: 0, runtimes: [] })).toEqual([]);
  });

  it.skipIf(skip !== null)('records a large batch whole, in one transaction, and prunes by age', async () => {
    const many = Array.from({ length: 1000 }, (_, index) => use({ at: NOW - (index % 100) * DAY_MS, session: `s${index}` }));
    await store.record(many);
    expect((await store.tally({ since: 0 }))[0]?.invoked).toBe(1000);
    expect(await store.prune(NOW - 49.5 * DAY_MS)).toBe(500);
    expect((await store.tally({ since: 0 }))[0]?.invoked).toBe(500);
    expect(await store.prune(NOW - 49.5 * DAY_MS)).toBe(0);
    await store.record([]);
  });

  it.skipIf(skip !== null)('stores nothing of a batch that fails part way', async () => {
    const broken = use({ name: null as unknown as string });
    await expect(store.record([use({ name: 'first' }), broken])).rejects.toThrow();
    expect(await store.tally({ since: 0 })).toEqual([]);
  });
});
