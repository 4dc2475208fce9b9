import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CapabilityKinds, closeKernel, contribute, createKernel, PluginSource, resolvePlaces, SessionLoader } from '@loadout/kernel';
import { descriptorLimit, processDescriptorBudget } from '../src/DescriptorBudget.js';
import { removeTestdirs, testdir, writeTree } from '@loadout/files/testing';
import { card, cardKind, keepReads } from './support.js';

// Under a spent watch budget an unwatched document is checked through a read-only descriptor held
// on it (an `fstat`, no walk of its path) while its kind folder is watched. It must stay exactly as
// safe as the stat of its path: every way the path can stop naming the held file, or the file can
// change, is made here on real files and must be seen — with descriptors held, with the descriptor
// budget spent (that document is checked by path) and with its kind folder unwatched (no
// descriptor at all).

afterEach(removeTestdirs);

/** A stamp is trusted once its file is this old; the test waits past it between steps. */
const RACY_MS = 40;
const pause = (ms = RACY_MS * 2) => new Promise((done) => setTimeout(done, ms));

/**
 * A workspace whose root sits two folders below the test folder (`above/home/capabilities`), so
 * a folder above the root can be replaced, and a kernel with a watch cache of `watchBudget`
 * watches and `descriptorBudget` descriptors.
 */
function workspace(options: { watchBudget: number; descriptorBudget?: number; cards?: Record<string, string> }) {
  const base = testdir();
  const home = path.join(base, 'above', 'home');
  const cards = options.cards ?? { a: card('a', 1), b: card('b', 1), c: card('c', 1) };
  writeTree(home, {
    capabilities: { cards: Object.fromEntries(Object.entries(cards).map(([name, text]) => [name, { 'CARD.md': text }])) },
    plugins: {},
  });
  const reads = { count: 0 };
  const container = createKernel({ places: resolvePlaces({}, home) }, [
    {
      name: 'test',
      now: (c) => {
        contribute(c, CapabilityKinds, cardKind(reads, true));
        contribute(c, PluginSource, { listInstalledPlugins: () => [] });
      },
    },
  ]);
  const cache = keepReads(container, {
    watchBudget: options.watchBudget,
    racyMs: RACY_MS,
    ...(options.descriptorBudget === undefined ? {} : { descriptorBudget: options.descriptorBudget }),
  });
  const loader = container.resolve(SessionLoader);
  const root = path.join(home, 'capabilities');
  const open = async (): Promise<string[]> => {
    const session = await loader.open();
    const seen = session.recordsOf('card').map((record) => `${record.name}:${record.description}`);
    session.dispose();
    return seen;
  };
  /** Two opens after a pause: stamps are trusted, and descriptors opened after a path stat that held. */
  const settle = async (): Promise<string[]> => {
    await pause();
    await open();
    return open();
  };
  return { base, home, root, cards: path.join(root, 'cards'), reads, container, cache, loader, open, settle };
}

/** The files this process holds a descriptor of. */
function heldFiles(): Set<string> {
  const held = new Set<string>();
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      held.add(fs.readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      // closed while listed
    }
  }
  return held;
}

/** Writes `text` to `file` and sets its times back to what they were: only its change time, links or identity can tell. */
function writeKeepingTimes(file: string, text: string, like = file): void {
  const stats = fs.statSync(like);
  fs.writeFileSync(file, text);
  fs.utimesSync(file, stats.atime, stats.mtime);
}

/** Puts version 2 of `x`'s document in its place by a rename over it, with the old one's size and times. */
function renameOver(cards: string, x: string): void {
  const file = path.join(cards, x, 'CARD.md');
  writeKeepingTimes(path.join(cards, x, 'next.tmp'), card(x, 2), file);
  fs.renameSync(path.join(cards, x, 'next.tmp'), file);
}

interface Change {
  readonly name: string;
  /** Made before the cache reads anything (a second link, a document that is a link). */
  readonly prepare?: (cards: string, x: string, home: string) => void;
  readonly make: (cards: string, x: string, at: { home: string; root: string; base: string }) => void;
  /** What the card `x` reads as afterwards: its description, or null when it is gone. */
  readonly after: string | null;
  /** When the document is a link: never held. */
  readonly link?: boolean;
}

const changes: readonly Change[] = [
  {
    name: 'edited in place, same size, times set back',
    make: (cards, x) => writeKeepingTimes(path.join(cards, x, 'CARD.md'), card(x, 2)),
    after: 'version 2',
  },
  {
    name: 'edited in place, bytes unchanged',
    make: (cards, x) => fs.writeFileSync(path.join(cards, x, 'CARD.md'), card(x, 1)),
    after: 'version 1',
  },
  { name: 'removed', make: (cards, x) => fs.rmSync(path.join(cards, x, 'CARD.md')), after: null },
  { name: 'replaced by a rename over it, same size and times', make: renameOver, after: 'version 2' },
  {
    name: 'replaced by a rename over it while a second link of it stays elsewhere',
    prepare: (cards, x, home) => fs.linkSync(path.join(cards, x, 'CARD.md'), path.join(home, `${x}.link`)),
    make: renameOver,
    after: 'version 2',
  },
  {
    name: 'removed while a second link of it stays elsewhere',
    prepare: (cards, x, home) => fs.linkSync(path.join(cards, x, 'CARD.md'), path.join(home, `${x}.link`)),
    make: (cards, x) => fs.rmSync(path.join(cards, x, 'CARD.md')),
    after: null,
  },
  { name: 'renamed away', make: (cards, x) => fs.renameSync(path.join(cards, x, 'CARD.md'), path.join(cards, x, 'CARD.old')), after: null },
  {
    name: 'renamed away and another put in its place, same size and times',
    make: (cards, x) => {
      const file = path.join(cards, x, 'CARD.md');
      fs.renameSync(file, path.join(cards, x, 'CARD.old'));
      fs.writeFileSync(file, card(x, 2));
      const stats = fs.statSync(path.join(cards, x, 'CARD.old'));
      fs.utimesSync(file, stats.atime, stats.mtime);
    },
    after: 'version 2',
  },
  {
    name: 'its entry folder renamed away and another of the same name made',
    make: (cards, x, { home }) => {
      const old = path.join(cards, x, 'CARD.md');
      fs.renameSync(path.join(cards, x), path.join(home, `${x}-moved`));
      writeTree(cards, { [x]: { 'CARD.md': card(x, 2) } });
      writeKeepingTimes(path.join(cards, x, 'CARD.md'), card(x, 2), path.join(home, `${x}-moved`, 'CARD.md'));
      expect(fs.existsSync(old)).toBe(true);
    },
    after: 'version 2',
  },
  {
    name: 'its entry folder removed and made again',
    make: (cards, x, { home }) => {
      fs.cpSync(path.join(cards, x), path.join(home, `${x}-copy`), { recursive: true, preserveTimestamps: true });
      fs.rmSync(path.join(cards, x), { recursive: true });
      writeTree(cards, { [x]: { 'CARD.md': card(x, 2) } });
      writeKeepingTimes(path.join(cards, x, 'CARD.md'), card(x, 2), path.join(home, `${x}-copy`, 'CARD.md'));
    },
    after: 'version 2',
  },
  {
    name: 'its kind folder replaced by another with the same entries',
    make: (cards, x, { home }) => {
      fs.renameSync(cards, path.join(home, 'cards-old'));
      fs.cpSync(path.join(home, 'cards-old'), cards, { recursive: true, preserveTimestamps: true });
      writeKeepingTimes(path.join(cards, x, 'CARD.md'), card(x, 2));
    },
    after: 'version 2',
  },
  {
    name: 'its root replaced by another with the same entries',
    make: (_cards, x, { home, root }) => {
      fs.renameSync(root, path.join(home, 'capabilities-old'));
      fs.cpSync(path.join(home, 'capabilities-old'), root, { recursive: true, preserveTimestamps: true });
      writeKeepingTimes(path.join(root, 'cards', x, 'CARD.md'), card(x, 2));
    },
    after: 'version 2',
  },
  {
    name: 'a folder above its root replaced by another with the same entries',
    make: (_cards, x, { base }) => {
      const above = path.join(base, 'above');
      fs.renameSync(above, path.join(base, 'above-old'));
      fs.cpSync(path.join(base, 'above-old'), above, { recursive: true, preserveTimestamps: true });
      writeKeepingTimes(path.join(above, 'home/capabilities/cards', x, 'CARD.md'), card(x, 2));
    },
    after: 'version 2',
  },
  {
    name: 'a document that is a link, pointed elsewhere',
    link: true,
    prepare: (cards, x) => {
      fs.renameSync(path.join(cards, x, 'CARD.md'), path.join(cards, x, 'one.md'));
      fs.writeFileSync(path.join(cards, x, 'two.md'), card(x, 2));
      fs.symlinkSync('one.md', path.join(cards, x, 'CARD.md'));
    },
    make: (cards, x) => {
      fs.symlinkSync('two.md', path.join(cards, x, 'next.link'));
      fs.renameSync(path.join(cards, x, 'next.link'), path.join(cards, x, 'CARD.md'));
    },
    after: 'version 2',
  },
  {
    name: 'a document that is a link, its target edited in place',
    link: true,
    prepare: (cards, x) => {
      fs.renameSync(path.join(cards, x, 'CARD.md'), path.join(cards, x, 'one.md'));
      fs.symlinkSync('one.md', path.join(cards, x, 'CARD.md'));
    },
    make: (cards, x) => writeKeepingTimes(path.join(cards, x, 'one.md'), card(x, 2)),
    after: 'version 2',
  },
];

/**
 * The ways a document is checked: through a descriptor held on it (`a`, its kind folder and root
 * watched), by path because the descriptor budget is spent
 * (`b`: one descriptor, held by `a`), and by path because its kind folder has no watch (budget 0:
 * no descriptor at all).
 */
const modes = [
  { name: 'a descriptor held on it', watchBudget: 2, descriptorBudget: undefined, x: 'a', held: true },
  { name: 'the descriptor budget spent', watchBudget: 2, descriptorBudget: 1, x: 'b', held: false },
  { name: 'its kind folder unwatched', watchBudget: 0, descriptorBudget: undefined, x: 'a', held: false },
] as const;

describe('an unwatched document checked through a held descriptor', () => {
  for (const mode of modes) {
    for (const change of changes) {
      it(`with ${mode.name}: ${change.name} is seen`, async () => {
        const w = workspace(mode);
        const x = mode.x;
        change.prepare?.(w.cards, x, w.home);
        try {
          expect(await w.settle()).toEqual(['a:version 1', 'b:version 1', 'c:version 1']);
          const file = path.join(w.cards, x, 'CARD.md');
          // The document is checked the way this mode says.
          expect(heldFiles().has(file)).toBe(mode.held && change.link !== true);
          if (mode.descriptorBudget === 1) expect(w.cache.descriptorCount).toBe(1);
          if (mode.watchBudget === 0) expect(w.cache.descriptorCount).toBe(0);
          w.reads.count = 0;
          expect(await w.open()).toEqual(['a:version 1', 'b:version 1', 'c:version 1']);
          expect(w.reads.count).toBe(0);

          const stamp = w.loader.changeStamp();
          change.make(w.cards, x, { home: w.home, root: w.root, base: w.base });
          // As a server asks: queued watcher events first, then the stamp.
          await w.loader.settle();
          expect(w.loader.changeStamp()).not.toBe(stamp);
          const expected = ['a', 'b', 'c'].flatMap((name) =>
            name !== x ? [`${name}:version 1`] : change.after === null ? [] : [`${name}:${change.after}`],
          );
          expect(await w.open()).toEqual(expected);
          // Settled again: still right, and nothing read.
          expect(await w.settle()).toEqual(expected);
          w.reads.count = 0;
          expect(await w.open()).toEqual(expected);
          expect(w.reads.count).toBe(0);
        } finally {
          closeKernel(w.container);
        }
        expect(w.cache.descriptorCount).toBe(0);
      });
    }

    it(`with ${mode.name}: an edit right after the read, within the clock's tick, is seen`, async () => {
      const w = workspace(mode);
      const file = path.join(w.cards, mode.x, 'CARD.md');
      try {
        await w.settle();
        for (const version of [2, 3, 4]) {
          fs.writeFileSync(file, card(mode.x, version));
          expect((await w.open()).find((seen) => seen.startsWith(`${mode.x}:`))).toBe(`${mode.x}:version ${version}`);
        }
      } finally {
        closeKernel(w.container);
      }
    });

    it(`with ${mode.name}: the document's mode changed is seen`, async () => {
      const w = workspace(mode);
      try {
        await w.settle();
        const stamp = w.loader.changeStamp();
        w.reads.count = 0;
        fs.chmodSync(path.join(w.cards, mode.x, 'CARD.md'), 0o600);
        await w.loader.settle();
        expect(w.loader.changeStamp()).not.toBe(stamp);
        await w.open();
        expect(w.reads.count).toBe(1);
      } finally {
        closeKernel(w.container);
      }
    });
  }

  it("an entry folder's mode changed is told by its kind folder's watch, so its document is read again", async () => {
    const w = workspace(modes[0]);
    try {
      await w.settle();
      expect(heldFiles().has(path.join(w.cards, 'a', 'CARD.md'))).toBe(true);
      w.reads.count = 0;
      fs.chmodSync(path.join(w.cards, 'a'), 0o700);
      await w.open();
      expect(w.reads.count).toBeGreaterThanOrEqual(1);
    } finally {
      closeKernel(w.container);
    }
  });
});

/**
 * A watch follows the folder it was made on, not its path. After the kind folder or the root is
 * replaced (as a plugin update renames a new clone in), the folder at the path is another one: an
 * entry folder replaced in it afterwards must still be seen, and an entry added to it too.
 */
const replacements: readonly { readonly name: string; readonly make: (w: ReturnType<typeof workspace>) => void }[] = [
  {
    name: 'the root replaced by a copy renamed in, the old one removed',
    make: (w) => {
      fs.cpSync(w.root, path.join(w.home, 'staging'), { recursive: true, preserveTimestamps: true });
      fs.renameSync(w.root, path.join(w.home, 'aside'));
      fs.renameSync(path.join(w.home, 'staging'), w.root);
      fs.rmSync(path.join(w.home, 'aside'), { recursive: true });
    },
  },
  {
    name: 'the kind folder removed and made again',
    make: (w) => {
      fs.cpSync(w.cards, path.join(w.home, 'copy'), { recursive: true, preserveTimestamps: true });
      fs.rmSync(w.cards, { recursive: true });
      fs.cpSync(path.join(w.home, 'copy'), w.cards, { recursive: true, preserveTimestamps: true });
    },
  },
  {
    name: 'the kind folder renamed away and a copy put in its place',
    make: (w) => {
      fs.cpSync(w.cards, path.join(w.home, 'copy'), { recursive: true, preserveTimestamps: true });
      fs.renameSync(w.cards, path.join(w.home, 'cards-moved'));
      fs.renameSync(path.join(w.home, 'copy'), w.cards);
    },
  },
];

describe('after the kind folder or the root is replaced', () => {
  for (const mode of modes) {
    for (const replacement of replacements) {
      it(`with ${mode.name}: ${replacement.name}, then an entry folder replaced, then one added, each is seen`, async () => {
        const w = workspace(mode);
        const x = mode.x;
        try {
          await w.settle();
          replacement.make(w);
          await w.loader.settle();
          await w.open();
          expect(await w.settle()).toEqual(['a:version 1', 'b:version 1', 'c:version 1']);

          const moved = path.join(w.home, `${x}-moved`);
          fs.renameSync(path.join(w.cards, x), moved);
          writeTree(w.cards, { [x]: { 'CARD.md': card(x, 2) } });
          writeKeepingTimes(path.join(w.cards, x, 'CARD.md'), card(x, 2), path.join(moved, 'CARD.md'));
          await w.loader.settle();
          await pause();
          const expected = ['a', 'b', 'c'].map((name) => `${name}:version ${name === x ? 2 : 1}`);
          expect(await w.open()).toEqual(expected);

          writeTree(w.cards, { d: { 'CARD.md': card('d', 1) } });
          await w.loader.settle();
          await pause();
          expect(await w.open()).toEqual([...expected, 'd:version 1']);
          expect(await w.settle()).toEqual([...expected, 'd:version 1']);
        } finally {
          closeKernel(w.container);
        }
        expect(w.cache.descriptorCount).toBe(0);
      });
    }
  }
});

describe('the descriptors held', () => {
  it('are let go when an entry is read again, removed, given a watch, its root released, and at close', async () => {
    // Four watches: the kind folder, the root, then one entry folder (a tenth of the budget is left spare).
    let clock = 0;
    const base = testdir();
    const home = path.join(base, 'home');
    writeTree(home, {
      capabilities: {
        cards: {
          a: { 'CARD.md': card('a', 1) },
          b: { 'CARD.md': card('b', 1) },
          c: { 'CARD.md': card('c', 1) },
          d: { 'CARD.md': card('d', 1) },
        },
      },
      plugins: {},
    });
    const container = createKernel({ places: resolvePlaces({}, home) }, [
      {
        name: 'test',
        now: (c) => {
          contribute(c, CapabilityKinds, cardKind({ count: 0 }, true));
          contribute(c, PluginSource, { listInstalledPlugins: () => [] });
        },
      },
    ]);
    const cache = keepReads(container, { watchBudget: 4, racyMs: RACY_MS, idleMs: 60_000, now: () => clock });
    const loader = container.resolve(SessionLoader);
    const cards = path.join(home, 'capabilities/cards');
    const open = async () => (await loader.open()).dispose();
    const held = () => ['a', 'b', 'c', 'd'].filter((name) => heldFiles().has(path.join(cards, name, 'CARD.md')));
    try {
      await pause();
      await open();
      await open();
      // `a` got the one watch left for entries; the others are held.
      expect(cache.watchCount).toBe(3);
      expect(held()).toEqual(['b', 'c', 'd']);
      expect(cache.descriptorCount).toBe(3);

      // Nothing a child process starts with.
      const child = spawnSync('ls', ['-l', '/proc/self/fd'], { encoding: 'utf8' });
      expect(child.stdout).not.toContain('CARD.md');

      // Read again: let go, and held afresh once a later check finds it unchanged (the read right
      // after the write was too young to trust, so it is read once more first).
      await pause();
      fs.writeFileSync(path.join(cards, 'c/CARD.md'), card('c', 2));
      await open();
      expect(held()).toEqual(['b', 'd']);
      await pause();
      await open();
      await open();
      expect(held()).toEqual(['b', 'c', 'd']);

      // An entry removed: its kind folder is listed again, which lets every descriptor of it go
      // (each is held afresh after its path stat holds), and its watch goes to the next entry.
      fs.rmSync(path.join(cards, 'a'), { recursive: true });
      await open();
      expect(held()).toEqual([]);
      expect(cache.watchCount).toBe(3);
      await open();
      expect(held()).toEqual(['c', 'd']);
      expect(cache.descriptorCount).toBe(2);

      // Its root released (idle): everything goes.
      clock += 61_000;
      cache.sweep();
      expect(cache.descriptorCount).toBe(0);
      expect(held()).toEqual([]);
      await pause();
      await open();
      await open();
      expect(cache.descriptorCount).toBe(2);
    } finally {
      closeKernel(container);
    }
    expect(cache.descriptorCount).toBe(0);
    expect(heldFiles().has(path.join(cards, 'd/CARD.md'))).toBe(false);
  });

  it('count against one budget for the whole process when a cache is given no limit of its own', async () => {
    const base = testdir();
    const homes = ['one', 'two'].map((name) => path.join(base, name));
    for (const home of homes)
      writeTree(home, {
        capabilities: { cards: { a: { 'CARD.md': card('a', 1) }, b: { 'CARD.md': card('b', 1) }, c: { 'CARD.md': card('c', 1) } } },
        plugins: {},
      });
    const before = processDescriptorBudget().held;
    const opened = homes.map((home) => {
      const container = createKernel({ places: resolvePlaces({}, home) }, [
        {
          name: 'test',
          now: (c) => {
            contribute(c, CapabilityKinds, cardKind({ count: 0 }, true));
            contribute(c, PluginSource, { listInstalledPlugins: () => [] });
          },
        },
      ]);
      // Three watches: the kind folder and the root, nothing for the entries.
      const cache = keepReads(container, { watchBudget: 3, racyMs: RACY_MS });
      return { container, cache, loader: container.resolve(SessionLoader) };
    });
    try {
      await pause();
      for (const { loader } of opened) for (let i = 0; i < 2; i += 1) (await loader.open()).dispose();
      const counts = opened.map(({ cache }) => cache.descriptorCount);
      expect(counts).toEqual([3, 3]);
      expect(processDescriptorBudget().held - before).toBe(6);
    } finally {
      for (const { container } of opened) closeKernel(container);
    }
    expect(processDescriptorBudget().held).toBe(before);
  });

  it('are at most the budget derived from the open-file limit, less than half of it', () => {
    const limits = (soft: string) =>
      `Limit                     Soft Limit           Hard Limit           Units     \nMax open files            ${soft}                20000                files     \n`;
    expect(descriptorLimit(limits('20000'))).toBe(9488);
    expect(descriptorLimit(limits('1024'))).toBe(0);
    expect(descriptorLimit(limits('4096'))).toBe(1536);
    expect(descriptorLimit(limits('unlimited'))).toBe((2 ** 20 - 1024) / 2);
    expect(descriptorLimit('')).toBe(0);
    expect(descriptorLimit(null)).toBe(0);
  });
});
