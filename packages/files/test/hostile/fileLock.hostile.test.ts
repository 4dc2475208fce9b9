import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireFileLock } from '../../src/index.js';
import { removeTestdirs, testdir } from '../../src/testing/index.js';

/**
 * The next holder of an inter-process lock, against one that is still running. A holder killed
 * while holding is in e2e `lockRecovery.hostile.test.ts` (the holder there is a real process).
 */

afterEach(removeTestdirs);

describe('hostile locks', () => {
  it('14 a lock a live process holds is refused as FILE_LOCK_BUSY naming that process', async () => {
    const target = path.join(testdir(), 'runtimes');
    const held = await acquireFileLock(target, { stale: 30_000 });
    try {
      expect(fs.readFileSync(path.join(held.path, 'holder'), 'utf8')).toMatch(new RegExp(`^${process.pid} `));
      const refused = acquireFileLock(target, { stale: 30_000 });
      await expect(refused).rejects.toMatchObject({ code: 'FILE_LOCK_BUSY', holder: process.pid });
      await expect(refused).rejects.toThrow(`locked by process ${process.pid}, still running`);
    } finally {
      await held.release();
    }
    expect(fs.existsSync(held.path)).toBe(false);
  });

  it('14 the holder file never costs a held lock its refreshes', async () => {
    const target = path.join(testdir(), 'server');
    const lost: Error[] = [];
    const held = await acquireFileLock(target, { stale: 2000, update: 1000, onCompromised: (error) => lost.push(error) });
    await new Promise((done) => setTimeout(done, 2500));
    expect(lost).toEqual([]);
    expect(held.compromised).toBeNull();
    await held.release();
  });
});
