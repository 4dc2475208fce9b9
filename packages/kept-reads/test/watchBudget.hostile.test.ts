import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CapabilityKinds, closeKernel, contribute, createKernel, PluginSource, resolvePlaces, SessionLoader } from '@loadout/kernel';
import { noteKind } from '@loadout/kernel/testing';
import { removeTestdirs, testdir, writeTree } from '@loadout/files/testing';
import { card, cardKind, keepReads } from './support.js';

// S1 of the hardening issue ("says more than it does"): when the system refused a watch, the watch
// cache stopped telling of changes without a word. Now a watch it cannot have is a diagnostic, and
// what is not watched is checked by stat at each open: never stale, and not read again when it
// did not change. The system's own refusal (ENOSPC) is met through the built server in
// packages/e2e/test/hostile/watchLimit.hostile.test.ts; here the budget (LOADOUT_WATCH_BUDGET)
// stands for it.

afterEach(removeTestdirs);

/** A stamp is trusted once its file is this old; the test waits past it between steps. */
const RACY_MS = 40;
const pause = (ms = RACY_MS * 2) => new Promise((done) => setTimeout(done, ms));

/** A kernel over `home` with cards (counting reads in `reads`) and notes, no plugins, and a watch cache of `budget` watches. */
function cardsKernel(home: string, reads: { count: number }, budget: number, fileAlone: boolean) {
  const container = createKernel({ places: resolvePlaces({}, home) }, [
    {
      name: 'test',
      now: (c) => {
        contribute(c, CapabilityKinds, cardKind(reads, fileAlone));
        contribute(c, CapabilityKinds, noteKind);
        contribute(c, PluginSource, { listInstalledPlugins: () => [] });
      },
    },
  ]);
  const cache = keepReads(container, { watchBudget: budget, racyMs: RACY_MS });
  return { container, cache, loader: container.resolve(SessionLoader) };
}

describe('S1 a watch the cache cannot have', () => {
  for (const [budget, fileAlone] of [
    [0, false],
    [3, false],
    [0, true],
    [3, true],
  ] as const) {
    it(`S1 with LOADOUT_WATCH_BUDGET=${budget}${fileAlone ? ', records from the document alone' : ''}: says so once, reads nothing unchanged, and sees every edit, addition and removal`, async () => {
      const home = testdir({
        capabilities: {
          cards: { a: { 'CARD.md': card('a', 1) }, b: { 'CARD.md': card('b', 1) }, c: { 'CARD.md': card('c', 1) } },
          notes: { 'x.md': card('x', 1) },
        },
        plugins: {},
      });
      const reads = { count: 0 };
      const { container, cache, loader } = cardsKernel(home, reads, budget, fileAlone);
      const open = async () => {
        const session = await loader.open();
        const seen = {
          cards: session.recordsOf('card').map((record) => `${record.name}:${record.description}`),
          notes: session.recordsOf('note').map((record) => `${record.name}:${record.description}`),
          budget: session.diagnostics.filter((diagnostic) => diagnostic.code.startsWith('WATCH_')),
        };
        session.dispose();
        return seen;
      };
      try {
        await pause();
        const first = await open();
        expect(first.cards).toEqual(['a:version 1', 'b:version 1', 'c:version 1']);
        expect(first.notes).toEqual(['x:version 1']);
        expect(first.budget).toHaveLength(1);
        expect(first.budget[0]).toMatchObject({ code: 'WATCH_BUDGET_SPENT', severity: 'info' });
        expect(first.budget[0]?.message).toContain(`LOADOUT_WATCH_BUDGET=${budget}`);
        expect(cache.watchCount).toBeLessThanOrEqual(budget);

        // Nothing changed: the stamps say so, and no entry is read again.
        reads.count = 0;
        expect((await open()).cards).toEqual(first.cards);
        expect(reads.count).toBe(0);

        // An edit in place that keeps the size, a new entry, a removed one, an edited single-file document.
        await pause();
        fs.writeFileSync(path.join(home, 'capabilities/cards/a/CARD.md'), card('a', 2));
        writeTree(path.join(home, 'capabilities/cards'), { d: { 'CARD.md': card('d', 1) } });
        fs.rmSync(path.join(home, 'capabilities/cards/b'), { recursive: true });
        fs.writeFileSync(path.join(home, 'capabilities/notes/x.md'), card('x', 2));
        const changed = await open();
        expect(changed.cards).toEqual(['a:version 2', 'c:version 1', 'd:version 1']);
        expect(changed.notes).toEqual(['x:version 2']);

        // An edit right after a read, within the file system's clock tick: still seen.
        fs.writeFileSync(path.join(home, 'capabilities/cards/c/CARD.md'), card('c', 3));
        expect((await open()).cards).toEqual(['a:version 2', 'c:version 3', 'd:version 1']);
        fs.writeFileSync(path.join(home, 'capabilities/cards/c/CARD.md'), card('c', 4));
        expect((await open()).cards).toEqual(['a:version 2', 'c:version 4', 'd:version 1']);

        // An entry folder replaced by another of the same name whose document has the same size and times.
        await pause();
        const replaced = path.join(home, 'capabilities/cards/d');
        const stats = fs.statSync(path.join(replaced, 'CARD.md'));
        fs.rmSync(replaced, { recursive: true });
        writeTree(path.join(home, 'capabilities/cards'), { d: { 'CARD.md': card('d', 5) } });
        fs.utimesSync(path.join(replaced, 'CARD.md'), stats.atime, stats.mtime);
        expect((await open()).cards).toEqual(['a:version 2', 'c:version 4', 'd:version 5']);

        // A kind folder made later, in a root with no watch of its own.
        fs.rmSync(path.join(home, 'capabilities/notes'), { recursive: true });
        expect((await open()).notes).toEqual([]);
        writeTree(path.join(home, 'capabilities'), { notes: { 'y.md': card('y', 1) } });
        expect((await open()).notes).toEqual(['y:version 1']);

        // Settled again: nothing is read.
        await pause();
        await open();
        reads.count = 0;
        await open();
        expect(reads.count).toBe(0);
      } finally {
        closeKernel(container);
      }
      expect(cache.watchCount).toBe(0);
    });
  }

  it('S1 an unwatched root: its own files edited in place, added and removed, and a kind folder made in it, each move the change stamp', async () => {
    const home = testdir({ capabilities: { 'config.json': '{"a":1}', cards: { a: { 'CARD.md': card('a', 1) } } }, plugins: {} });
    const { container, loader } = cardsKernel(home, { count: 0 }, 0, true);
    const root = path.join(home, 'capabilities');
    // Nothing changed: the stamp stands still from one open to the next (the server opens a session whenever it moved).
    const settled = async (): Promise<string | null> => {
      await pause();
      (await loader.open()).dispose();
      const stamp = loader.changeStamp();
      (await loader.open()).dispose();
      expect(loader.changeStamp()).toBe(stamp);
      return stamp;
    };
    const moves = async (change: () => void): Promise<void> => {
      const before = await settled();
      change();
      expect(loader.changeStamp()).not.toBe(before);
    };
    try {
      // The same size, so only the file's own times tell.
      await moves(() => fs.writeFileSync(path.join(root, 'config.json'), '{"a":2}'));
      await moves(() => fs.writeFileSync(path.join(root, 'gate.json'), '{}'));
      await moves(() => fs.rmSync(path.join(root, 'config.json')));
      await moves(() => fs.writeFileSync(path.join(root, 'gate.json'), '{"b":1}'));
      // A missing kind folder is told of by the root's stamp, not stat'ed itself.
      await moves(() => writeTree(root, { notes: { 'x.md': card('x', 1) } }));
      const session = await loader.open();
      expect(session.recordsOf('note').map((record) => record.name)).toEqual(['x']);
      session.dispose();
    } finally {
      closeKernel(container);
    }
  });

  it('S1 requests waiting together share one stat pass, never one that started before they came', async () => {
    const home = testdir({ capabilities: { cards: { a: { 'CARD.md': card('a', 1) }, b: { 'CARD.md': card('b', 1) } } }, plugins: {} });
    const { container, loader } = cardsKernel(home, { count: 0 }, 0, true);
    const edit = (version: number) => fs.writeFileSync(path.join(home, 'capabilities/cards/a/CARD.md'), card('a', version));
    const descriptionOfA = async (options: { checkedSince?: number } = {}) => {
      const session = await loader.open(options);
      const description = session.find('card', 'a')?.description;
      session.dispose();
      return description;
    };
    try {
      await pause();
      expect(await descriptionOfA()).toBe('version 1');

      // Two requests arrive; the first one's check starts after both came, so it stands for the second's.
      const first = loader.ticket();
      const second = loader.ticket();
      const stamp = loader.changeStamp(first);
      expect(loader.changeStamp(second)).toBe(stamp);
      // An edit after that check: a request arriving now gets a check of its own and sees it.
      await pause();
      edit(2);
      const third = loader.ticket();
      expect(loader.changeStamp(third)).not.toBe(stamp);
      expect(await descriptionOfA({ checkedSince: third })).toBe('version 2');

      // A check started before a request came never stands for it, whatever kinds it covered.
      await pause();
      const before = loader.ticket();
      (await loader.open({ kinds: ['card'], checkedSince: before })).dispose();
      edit(3);
      const after = loader.ticket();
      expect(await descriptionOfA({ checkedSince: after })).toBe('version 3');
      await pause();
      edit(4);
      expect(await descriptionOfA({ checkedSince: after })).toBe('version 3');
      expect(await descriptionOfA({ checkedSince: loader.ticket() })).toBe('version 4');
    } finally {
      closeKernel(container);
    }
  });

  it('S1 with watches to spare: every folder is watched and no diagnostic is given', async () => {
    const home = testdir({ capabilities: { cards: { a: { 'CARD.md': card('a', 1) } } }, plugins: {} });
    const reads = { count: 0 };
    const container = createKernel({ places: resolvePlaces({}, home) }, [
      {
        name: 'test',
        now: (c) => {
          contribute(c, CapabilityKinds, cardKind(reads));
          contribute(c, PluginSource, { listInstalledPlugins: () => [] });
        },
      },
    ]);
    const cache = keepReads(container, { watchBudget: 100 });
    try {
      const session = await container.resolve(SessionLoader).open();
      expect(session.diagnostics.filter((diagnostic) => diagnostic.code.startsWith('WATCH_'))).toEqual([]);
      session.dispose();
      // The root, its kind folder and the entry folder.
      expect(cache.watchCount).toBe(3);
    } finally {
      closeKernel(container);
    }
  });
});
