import path from 'node:path';
import { type Database, openDatabase } from '@loadout/db';
import { removeTestdirs, testdir } from '@loadout/kernel/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { capabilityStateMigration, SqliteCapabilityStateStore } from './CapabilityStateStore.js';

describe('SqliteCapabilityStateStore', () => {
  let db: Database;
  let store: SqliteCapabilityStateStore;
  let projectA: string;
  let projectB: string;

  beforeEach(() => {
    const dir = testdir({ a: {}, b: {} });
    db = openDatabase(path.join(dir, 'data'), [capabilityStateMigration]);
    store = new SqliteCapabilityStateStore(db);
    projectA = path.join(dir, 'a');
    projectB = path.join(dir, 'b');
  });
  afterEach(() => {
    db.close();
    removeTestdirs();
  });

  it('stores a value per scope and reads exactly that scope back', () => {
    expect(store.surfacedAt('skill', 'pdf', null)).toBeUndefined();
    store.setSurfaced('skill', 'pdf', null, false);
    store.setSurfaced('skill', 'pdf', projectA, true);
    expect(store.surfacedAt('skill', 'pdf', null)).toBe(false);
    expect(store.surfacedAt('skill', 'pdf', projectA)).toBe(true);
    expect(store.surfacedAt('skill', 'pdf', projectB)).toBeUndefined();
    expect(store.surfacedFor('skill', 'pdf', projectB)).toEqual({ project: undefined, global: false });
    expect(store.surfacedFor('skill', 'pdf', projectA)).toEqual({ project: true, global: false });
  });

  it('keys state by identity: ids compare case-insensitively and are stored lower-cased', () => {
    store.setSurfaced('server', 'GitHub', null, false);
    expect(store.surfacedAt('server', 'github', null)).toBe(false);
    store.setSurfaced('server', 'GITHUB', null, true);
    expect(store.surfacedAt('server', 'GitHub', null)).toBe(true);
    const ids = db.prepare('SELECT id FROM capability_state').all() as { id: string }[];
    expect(ids).toEqual([{ id: 'github' }]);
    expect(store.surfacedAt('skill', 'github', null)).toBeUndefined();
  });

  it('maps every value of the global scope and one project', () => {
    store.applySurfaced([
      { kind: 'skill', id: 'a', scope: null, surfaced: false, plugin: null },
      { kind: 'skill', id: 'a', scope: projectA, surfaced: true, plugin: null },
      { kind: 'skill', id: 'b', scope: projectB, surfaced: false, plugin: null },
    ]);
    const map = store.surfacedMap(projectA);
    expect(map.get('skill/a')).toEqual({ project: true, global: false });
    expect(map.has('skill/b')).toBe(false);
    expect(store.surfacedMap(null).get('skill/a')).toEqual({ project: undefined, global: false });
  });

  it('writes a batch in one transaction: a bad change leaves nothing behind', () => {
    expect(() =>
      store.applySurfaced([
        { kind: 'skill', id: 'a', scope: null, surfaced: false, plugin: null },
        { kind: 'skill', id: 'b', scope: 'relative/path', surfaced: false, plugin: null },
      ]),
    ).toThrow(expect.objectContaining({ code: 'STATE_SCOPE_INVALID' }));
    expect(db.prepare('SELECT COUNT(*) AS n FROM capability_state').get()).toEqual({ n: 0 });
  });

  it('refuses an empty or relative project scope', () => {
    expect(() => store.setSurfaced('skill', 'a', '', true)).toThrow(expect.objectContaining({ code: 'STATE_SCOPE_INVALID' }));
    expect(() => store.surfacedAt('skill', 'a', 'project')).toThrow(expect.objectContaining({ code: 'STATE_SCOPE_INVALID' }));
  });

  it('forgets the global default and every project override, only the global default, or one project', () => {
    const seed = (): void => {
      store.setSurfaced('skill', 'a', null, false);
      store.setSurfaced('skill', 'a', projectA, true);
      store.setSurfaced('skill', 'a', projectB, false);
      store.setSurfaced('skill', 'other', null, false);
    };
    seed();
    expect(store.forget('skill', 'A', { project: projectA })).toBe(1);
    expect(store.surfacedAt('skill', 'a', projectA)).toBeUndefined();
    expect(store.surfacedAt('skill', 'a', null)).toBe(false);

    expect(store.forget('skill', 'a', { allProjects: false })).toBe(1);
    expect(store.surfacedAt('skill', 'a', null)).toBeUndefined();
    expect(store.surfacedAt('skill', 'a', projectB)).toBe(false);

    seed();
    expect(store.forget('skill', 'a', { allProjects: true })).toBe(3);
    expect(store.surfacedMap(projectB).has('skill/a')).toBe(false);
    expect(store.surfacedAt('skill', 'other', null)).toBe(false);
  });

  it("forgets exactly the rows written for a plugin's capabilities", () => {
    store.applySurfaced([
      { kind: 'skill', id: 'p1', scope: null, surfaced: false, plugin: 'tools' },
      { kind: 'skill', id: 'p2', scope: projectA, surfaced: true, plugin: 'tools' },
      { kind: 'skill', id: 'mine', scope: null, surfaced: false, plugin: null },
      { kind: 'skill', id: 'theirs', scope: null, surfaced: false, plugin: 'other' },
    ]);
    expect(store.forgetPlugin('tools')).toBe(2);
    const left = db.prepare('SELECT id FROM capability_state ORDER BY id').all() as { id: string }[];
    expect(left.map((row) => row.id)).toEqual(['mine', 'theirs']);
  });
});
