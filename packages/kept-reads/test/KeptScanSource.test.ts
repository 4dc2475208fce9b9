import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CapabilityKinds,
  type CapabilityRecord,
  closeKernel,
  contribute,
  createKernel,
  type InstalledPlugin,
  PluginSource,
  resolvePlaces,
  SessionLoader,
} from '@loadout/kernel';
import { countingKind, freezeReads, loaderWorkspace, noteKind } from '@loadout/kernel/testing';
import { removeTestdirs, writeTree } from '@loadout/files/testing';
import { keptReadsModule } from '../src/keptReadsModule.js';

afterEach(removeTestdirs);

const note = (name: string) => `---\nname: ${name}\ndescription: ${name} note\n---\n`;

const workspace = loaderWorkspace;

/** A test kernel over `home` whose loader keeps its reads, and hands out only frozen things ({@link freezeReads}). */
function kernel(home: string, plugins: InstalledPlugin[]) {
  const container = createKernel({ places: resolvePlaces({}, home) }, [
    keptReadsModule(),
    {
      name: 'test',
      now: (c) => {
        contribute(c, CapabilityKinds, noteKind);
        contribute(c, PluginSource, { listInstalledPlugins: () => plugins });
      },
    },
  ]);
  freezeReads(container);
  return container;
}

describe('a loader that keeps its reads', () => {
  it('sees edits, additions and removals through the watchers', async () => {
    const { home, plugins } = workspace({ owner: { notes: { 'a.md': note('a'), 'b.md': note('b') } } });
    const container = kernel(home, plugins);
    const loader = container.resolve(SessionLoader);
    try {
      expect((await loader.open()).recordsOf('note').map((n) => n.name)).toEqual(['a', 'b']);
      writeTree(path.join(home, 'capabilities/notes'), { 'a.md': note('a2'), 'c.md': note('c') });
      fs.rmSync(path.join(home, 'capabilities/notes/b.md'));
      await new Promise((done) => setTimeout(done, 50));
      expect((await loader.open()).recordsOf('note').map((n) => n.name)).toEqual(['a2', 'c']);
      fs.mkdirSync(path.join(home, 'plugins/late/notes'), { recursive: true });
      writeTree(path.join(home, 'capabilities'), { extra: {} });
      await new Promise((done) => setTimeout(done, 50));
      expect((await loader.open()).recordsOf('note')).toHaveLength(2);
    } finally {
      closeKernel(container);
    }
  });

  it('patches an in-place edit and keeps shadowing right', async () => {
    const body = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n`;
    const { home, plugins } = workspace({
      owner: { notes: { 'a.md': body('shared', 'owner v1'), 'b.md': body('b', 'b v1') } },
      plugins: { alpha: { notes: { 'x.md': body('shared', 'plugin v1') } } },
    });
    const container = kernel(home, plugins);
    const loader = container.resolve(SessionLoader);
    const describe = async () => (await loader.open()).recordsOf('note').map((n) => `${n.id}:${n.description}:${n.plugin ?? 'owner'}`);
    try {
      expect(await describe()).toEqual(['b:b v1:owner', 'shared:owner v1:owner']);
      writeTree(path.join(home, 'plugins/alpha/notes'), { 'x.md': body('shared', 'plugin v2') });
      await new Promise((done) => setTimeout(done, 50));
      expect(await describe()).toEqual(['b:b v1:owner', 'shared:owner v1:owner']);
      writeTree(path.join(home, 'capabilities/notes'), { 'a.md': body('shared', 'owner v2'), 'b.md': body('b', 'b v2') });
      await new Promise((done) => setTimeout(done, 50));
      expect(await describe()).toEqual(['b:b v2:owner', 'shared:owner v2:owner']);
      const session = await loader.open();
      expect(session.diagnostics.filter((d) => d.code === 'SHADOWED')).toHaveLength(1);
      fs.rmSync(path.join(home, 'capabilities/notes/a.md'));
      await new Promise((done) => setTimeout(done, 50));
      expect(await describe()).toEqual(['b:b v2:owner', 'shared:plugin v2:alpha']);
    } finally {
      closeKernel(container);
    }
  });

  it('notices a kind folder created after the first session, also once every watched folder stopped being checked by stat', async () => {
    const { home, plugins } = workspace({});
    const container = kernel(home, plugins);
    const loader = container.resolve(SessionLoader);
    try {
      expect((await loader.open()).recordsOf('note')).toHaveLength(0);
      // Settled: the missing folder is the root watch's to tell of, whole sessions and scoped ones alike.
      for (let i = 0; i < 3; i += 1) (await loader.open({ kinds: ['note'] })).dispose();
      loader.changeStamp();
      writeTree(path.join(home, 'capabilities'), { notes: { 'n.md': note('n') } });
      await new Promise((done) => setTimeout(done, 50));
      expect((await loader.open({ kinds: ['note'] })).recordsOf('note').map((n) => n.id)).toEqual(['n']);
    } finally {
      closeKernel(container);
    }
  });
});

describe('a loader that keeps its reads, for some kinds only', () => {
  it('shares what sessions of some kinds read with whole sessions: nothing is read twice', async () => {
    const reads = new Map<string, number>();
    const { home, plugins } = workspace({ owner: { notes: { 'a.md': note('a') }, cards: { 'b.md': note('b'), 'c.md': note('c') } } });
    const container = createKernel({ places: resolvePlaces({}, home) }, [
      keptReadsModule(),
      {
        name: 'test',
        now: (c) => {
          contribute(c, CapabilityKinds, countingKind(reads, 'note', 'notes'));
          contribute(c, CapabilityKinds, countingKind(reads, 'card', 'cards'));
          contribute(c, PluginSource, { listInstalledPlugins: () => plugins });
        },
      },
    ]);
    freezeReads(container);
    const loader = container.resolve(SessionLoader);
    try {
      expect((await loader.open({ kinds: ['card'] })).recordsOf('card').map((record) => record.id)).toEqual(['b', 'c']);
      expect((await loader.listRecords('note', null)).map((record) => [record.id, record.on])).toEqual([['a', true]]);
      expect([...reads]).toEqual([
        ['card', 2],
        ['note', 2],
      ]);
      reads.clear();
      const whole = await loader.open();
      expect(whole.toJSON()).toMatchObject({ notes: [{ id: 'a' }], cards: [{ id: 'b' }, { id: 'c' }] });
      expect([...reads]).toEqual([]);
    } finally {
      closeKernel(container);
    }
  });
});

describe('a kept session of the test kernel', () => {
  it('throws when its kept records are sorted in place or changed, warm and after an edit, and the next session is unharmed', async () => {
    const { home, plugins } = workspace({ owner: { notes: { 'a.md': note('a'), 'b.md': note('b'), 'c.md': note('c') } } });
    const container = kernel(home, plugins);
    const loader = container.resolve(SessionLoader);
    const tamper = (records: CapabilityRecord[]) => {
      expect(() => records.sort((x, y) => y.id.localeCompare(x.id))).toThrow(TypeError);
      expect(() => {
        (records[0] as { name: string }).name = 'tampered';
      }).toThrow(TypeError);
    };
    try {
      (await loader.open()).dispose();
      // Warm: the very records kept from the last session.
      const warm = await loader.open();
      tamper(warm.recordsOf('note') as CapabilityRecord[]);
      // One document edited in place: the kept lists are patched, and what is patched is frozen too.
      writeTree(path.join(home, 'capabilities/notes'), { 'b.md': '---\nname: b\ndescription: edited\n---\n' });
      await new Promise((done) => setTimeout(done, 50));
      const patched = await loader.open();
      tamper(patched.recordsOf('note') as CapabilityRecord[]);
      expect((await loader.open()).recordsOf('note').map((record) => `${record.name}:${record.description}`)).toEqual([
        'a:a note',
        'b:edited',
        'c:c note',
      ]);
    } finally {
      closeKernel(container);
    }
  });
});
