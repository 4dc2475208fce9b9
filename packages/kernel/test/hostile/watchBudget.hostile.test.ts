import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CapabilityKind,
  CapabilityKinds,
  closeKernel,
  contribute,
  createKernel,
  PluginSource,
  readMarkdownCapability,
  resolvePlaces,
  SessionLoader,
} from '../../src/index.js';
import { FolderScanCache } from '../../src/FolderScanCache.js';
import { noteKind, removeTestdirs, testdir, writeTree } from '../../src/testing/index.js';

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

/**
 * A kind of folder entries with a document inside (`cards/<dir>/CARD.md`), counting its reads;
 * with `fileAlone` it declares that a record comes from the document alone, so an unwatched entry
 * is checked by the document's stat only.
 */
function cardKind(reads: { count: number }, fileAlone = false): CapabilityKind {
  const document = { file: 'CARD.md', recordFromFileAlone: fileAlone, idRule: 'name', nameField: 'frontmatter' } as const;
  return {
    kind: 'card',
    folder: 'cards',
    sessionKey: 'cards',
    document,
    readEntry: (entry) => {
      reads.count += 1;
      if (!entry.isDirectory) return { records: [], diagnostics: [] };
      const read = readMarkdownCapability(entry.root.dir, path.join(entry.path, document.file), document);
      return { records: read === null ? [] : [read.draft], diagnostics: [] };
    },
  };
}

const card = (name: string, version: number) => `---\nname: ${name}\ndescription: version ${version}\n---\n`;

describe('S1 a watch the cache cannot have', () => {
  for (const [budget, fileAlone] of [
    [0, false],
    [3, false],
    [0, true],
    [3, true],
  ] as const) {
    it(`S1 with LOADOUT_WATCH_BUDGET=${budget}${fileAlone ? ', records from the document alone' : ''}: says so once, reads nothing unchanged, and sees every edit, addition and removal`, async () => {
      const home = testdir({
        capabilities: { cards: { a: { 'CARD.md': card('a', 1) }, b: { 'CARD.md': card('b', 1) }, c: { 'CARD.md': card('c', 1) } }, notes: { 'x.md': card('x', 1) } },
        plugins: {},
      });
      const reads = { count: 0 };
      const container = createKernel({ places: resolvePlaces({}, home) }, [
        (c) => {
          contribute(c, CapabilityKinds, cardKind(reads, fileAlone));
          contribute(c, CapabilityKinds, noteKind);
          contribute(c, PluginSource, { listInstalledPlugins: () => [] });
        },
      ]);
      const cache = new FolderScanCache({ watchBudget: budget, racyMs: RACY_MS });
      container.register(FolderScanCache, { useValue: cache });
      const loader = container.resolve(SessionLoader);
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

  it('S1 with watches to spare: every folder is watched and no diagnostic is given', async () => {
    const home = testdir({ capabilities: { cards: { a: { 'CARD.md': card('a', 1) } } }, plugins: {} });
    const reads = { count: 0 };
    const container = createKernel({ places: resolvePlaces({}, home), watch: true, watchBudget: 100 }, [
      (c) => {
        contribute(c, CapabilityKinds, cardKind(reads));
        contribute(c, PluginSource, { listInstalledPlugins: () => [] });
      },
    ]);
    try {
      const session = await container.resolve(SessionLoader).open();
      expect(session.diagnostics.filter((diagnostic) => diagnostic.code.startsWith('WATCH_'))).toEqual([]);
      session.dispose();
      // The root, its kind folder and the entry folder.
      expect(container.resolve(FolderScanCache).watchCount).toBe(3);
    } finally {
      closeKernel(container);
    }
  });
});
