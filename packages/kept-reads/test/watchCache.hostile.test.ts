import { afterEach, describe, expect, it } from 'vitest';
import { CapabilityKinds, closeKernel, contribute, createKernel, PluginSource, resolvePlaces, SessionLoader } from '@loadout/kernel';
import { noteKind } from '@loadout/kernel/testing';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { keepReads } from './support.js';

// Item 7 of the hardening issue: every distinct `?project=` added watches and cached scans that
// were never released. The cache keeps the roots of the session being opened, a bounded number of
// others (least recently used go first), and none idle for long.

afterEach(removeTestdirs);

/** A project whose `.agents/notes` holds one note and five entry folders: seven watches when cached. */
function project(n: number): string {
  const notes: Record<string, TreeDescription | string> = { [`p${n}.md`]: `---\nname: note-${n}\ndescription: of project ${n}\n---\n` };
  for (let d = 0; d < 5; d += 1) notes[`folder-${d}`] = { 'README.txt': 'x' };
  return testdir({ '.agents': { notes } });
}
const WATCHES_PER_PROJECT = 7;

describe('7 the watch cache', () => {
  it('7 holds the watches of a bounded number of projects however many are opened, and none once idle', async () => {
    const home = testdir({ capabilities: { notes: { 'own.md': '---\nname: own\ndescription: the owner\n---\n' } }, plugins: {} });
    const container = createKernel({ places: resolvePlaces({}, home) }, [
      {
        name: 'test',
        now: (c) => {
          contribute(c, CapabilityKinds, noteKind);
          contribute(c, PluginSource, { listInstalledPlugins: () => [] });
        },
      },
    ]);
    let clock = 0;
    const cache = keepReads(container, { spareRoots: 4, idleMs: 60_000, now: () => clock });
    const loader = container.resolve(SessionLoader);
    try {
      const owner = await loader.open();
      const ownerWatches = cache.watchCount;
      owner.dispose();
      expect(ownerWatches).toBeGreaterThan(0);

      const projects = Array.from({ length: 30 }, (_, n) => project(n));
      const counts: number[] = [];
      for (const [n, dir] of projects.entries()) {
        clock += 1000;
        const session = await loader.open({ project: dir });
        expect(session.recordsOf('note').map((record) => record.id)).toEqual([`note-${n}`, 'own']);
        session.dispose();
        counts.push(cache.watchCount);
      }
      // The session's own roots, plus four others at most.
      const bound = ownerWatches + (1 + 4) * WATCHES_PER_PROJECT;
      expect(Math.max(...counts)).toBeLessThanOrEqual(bound);
      expect(counts.at(-1)).toBe(bound);
      expect(cache.rootCount).toBe(1 + 1 + 4);

      // A project used recently is still cached; the least recently used went first.
      const recent = await loader.open({ project: projects[27] as string });
      expect(cache.watchCount).toBe(bound);
      recent.dispose();

      // Idle for longer than the expiry: everything is released, and the next session still reads the disk.
      clock += 61_000;
      cache.sweep();
      expect(cache.watchCount).toBe(0);
      expect(cache.rootCount).toBe(0);
      const again = await loader.open({ project: projects[0] as string });
      expect(again.recordsOf('note').map((record) => record.id)).toEqual(['note-0', 'own']);
      again.dispose();
    } finally {
      closeKernel(container);
    }
    expect(cache.watchCount).toBe(0);
  });
});
