import path from 'node:path';
import { backendSkipReason, knownSessionStamp, sessionStampMoved, sqlBackends, type TestSqlDatabase } from '@loadout/db/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { capabilityStateMigration, capabilityStatePostgresMigration, SqlCapabilityStateStore } from './CapabilityStateStore.js';

// The state store's contract, run on every engine: the same tests, SQLite and PostgreSQL.
describe.each(sqlBackends)('CapabilityStateStore on $name', (backend) => {
  const skip = backendSkipReason(backend);
  let opened: TestSqlDatabase;
  let store: SqlCapabilityStateStore;
  let projectA: string;
  let projectB: string;

  beforeEach(async () => {
    if (skip !== null) return;
    const dir = testdir({ a: {}, b: {} });
    opened = await backend.open([capabilityStateMigration], [capabilityStatePostgresMigration]);
    store = new SqlCapabilityStateStore(opened.db);
    projectA = path.join(dir, 'a');
    projectB = path.join(dir, 'b');
  });
  afterEach(async () => {
    if (skip !== null) return;
    await opened.close();
    removeTestdirs();
  });

  const ids = async (): Promise<string[]> =>
    (await opened.db.query<{ id: string }>('SELECT id FROM capability_state ORDER BY id')).map((row) => row.id);

  it.skipIf(skip !== null)('stores a value per scope and reads exactly that scope back', async () => {
    expect(await store.surfacedAt('skill', 'pdf', null)).toBeUndefined();
    await store.setSurfaced('skill', 'pdf', null, false);
    await store.setSurfaced('skill', 'pdf', projectA, true);
    expect(await store.surfacedAt('skill', 'pdf', null)).toBe(false);
    expect(await store.surfacedAt('skill', 'pdf', projectA)).toBe(true);
    expect(await store.surfacedAt('skill', 'pdf', projectB)).toBeUndefined();
    expect(await store.surfacedFor('skill', 'pdf', projectB)).toEqual({ project: undefined, global: false });
    expect(await store.surfacedFor('skill', 'pdf', projectA)).toEqual({ project: true, global: false });
  });

  it.skipIf(skip !== null)('keys state by identity: ids compare case-insensitively and are stored lower-cased', async () => {
    await store.setSurfaced('server', 'GitHub', null, false);
    expect(await store.surfacedAt('server', 'github', null)).toBe(false);
    await store.setSurfaced('server', 'GITHUB', null, true);
    expect(await store.surfacedAt('server', 'GitHub', null)).toBe(true);
    expect(await ids()).toEqual(['github']);
    expect(await store.surfacedAt('skill', 'github', null)).toBeUndefined();
  });

  it.skipIf(skip !== null)('maps every value of the global scope and one project', async () => {
    await store.applySurfaced([
      { kind: 'skill', id: 'a', scope: null, surfaced: false, plugin: null },
      { kind: 'skill', id: 'a', scope: projectA, surfaced: true, plugin: null },
      { kind: 'skill', id: 'b', scope: projectB, surfaced: false, plugin: null },
    ]);
    const map = await store.surfacedMap(projectA);
    expect(map.get('skill/a')).toEqual({ project: true, global: false });
    expect(map.has('skill/b')).toBe(false);
    expect((await store.surfacedMap(null)).get('skill/a')).toEqual({ project: undefined, global: false });
  });

  it.skipIf(skip !== null)(
    'writes a batch in one transaction: a bad change, or a failed write beside it, leaves nothing behind',
    async () => {
      await expect(
        store.applySurfaced([
          { kind: 'skill', id: 'a', scope: null, surfaced: false, plugin: null },
          { kind: 'skill', id: 'b', scope: 'relative/path', surfaced: false, plugin: null },
        ]),
      ).rejects.toMatchObject({ code: 'STATE_SCOPE_INVALID' });
      await expect(
        store.applySurfaced([{ kind: 'skill', id: 'a', scope: null, surfaced: false, plugin: null }], () => {
          throw new Error('the config file could not be written');
        }),
      ).rejects.toThrow('the config file could not be written');
      expect(await ids()).toEqual([]);
    },
  );

  it.skipIf(skip !== null)('refuses an empty or relative project scope', async () => {
    await expect(store.setSurfaced('skill', 'a', '', true)).rejects.toMatchObject({ code: 'STATE_SCOPE_INVALID' });
    await expect(store.surfacedAt('skill', 'a', 'project')).rejects.toMatchObject({ code: 'STATE_SCOPE_INVALID' });
  });

  it.skipIf(skip !== null)('forgets the global default and every project override, only the global default, or one project', async () => {
    const seed = async (): Promise<void> => {
      await store.setSurfaced('skill', 'a', null, false);
      await store.setSurfaced('skill', 'a', projectA, true);
      await store.setSurfaced('skill', 'a', projectB, false);
      await store.setSurfaced('skill', 'other', null, false);
    };
    await seed();
    expect(await store.forget('skill', 'A', { project: projectA })).toBe(1);
    expect(await store.surfacedAt('skill', 'a', projectA)).toBeUndefined();
    expect(await store.surfacedAt('skill', 'a', null)).toBe(false);

    expect(await store.forget('skill', 'a', { allProjects: false })).toBe(1);
    expect(await store.surfacedAt('skill', 'a', null)).toBeUndefined();
    expect(await store.surfacedAt('skill', 'a', projectB)).toBe(false);

    await seed();
    expect(await store.forget('skill', 'a', { allProjects: true })).toBe(3);
    expect((await store.surfacedMap(projectB)).has('skill/a')).toBe(false);
    expect(await store.surfacedAt('skill', 'other', null)).toBe(false);
  });

  it.skipIf(skip !== null)("forgets exactly the rows written for a plugin's capabilities", async () => {
    await store.applySurfaced([
      { kind: 'skill', id: 'p1', scope: null, surfaced: false, plugin: 'tools' },
      { kind: 'skill', id: 'p2', scope: projectA, surfaced: true, plugin: 'tools' },
      { kind: 'skill', id: 'mine', scope: null, surfaced: false, plugin: null },
      { kind: 'skill', id: 'theirs', scope: null, surfaced: false, plugin: 'other' },
    ]);
    expect(await store.forgetPlugin('tools')).toBe(2);
    expect(await ids()).toEqual(['mine', 'theirs']);
  });

  it.skipIf(skip !== null)('is one store for every connection: a switch written through one is read through another', async () => {
    const other = new SqlCapabilityStateStore(await opened.another());
    await store.setSurfaced('task', 'deploy', null, false);
    expect((await other.surfacedMap(null)).get('task/deploy')).toEqual({ project: undefined, global: false });
  });

  it.skipIf(skip !== null)("moves every connection's session stamp with each write, so another server's sessions go stale", async () => {
    const watcher = await opened.another();
    let seen = await knownSessionStamp(watcher);
    const writes: (() => Promise<unknown>)[] = [
      () => store.setSurfaced('skill', 'pdf', null, false),
      () => store.applySurfaced([{ kind: 'skill', id: 'tool', scope: projectA, surfaced: true, plugin: 'tools' }]),
      () => store.forget('skill', 'pdf', { allProjects: false }),
      () => opened.db.transaction((tx) => store.setSurfaced('skill', 'pdf', projectA, true, tx)),
      () => store.forgetPlugin('tools'),
    ];
    for (const write of writes) {
      await write();
      seen = await sessionStampMoved(watcher, seen);
    }
  });
});
