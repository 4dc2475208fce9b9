import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerAlreadyRunningError } from './ServerErrors.js';
import { acquireServerLock } from './ServerLock.js';

afterEach(removeTestdirs);

describe('acquireServerLock', () => {
  it('refuses a second server on the same data folder at once, and lets one in after release', async () => {
    const dataDir = testdir();
    const lock = await acquireServerLock(dataDir, () => undefined);
    const started = Date.now();
    await expect(acquireServerLock(dataDir, () => undefined)).rejects.toBeInstanceOf(ServerAlreadyRunningError);
    expect(Date.now() - started).toBeLessThan(1000);
    await lock.release();
    const again = await acquireServerLock(dataDir, () => undefined);
    await again.release();
  });

  it('takes over a stale lock left by a server that died', async () => {
    const dataDir = testdir({ 'server.pid': '999999999 1\n' });
    const lockDir = path.join(dataDir, 'server.lock');
    fs.mkdirSync(lockDir);
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lockDir, old, old);
    const lock = await acquireServerLock(dataDir, () => undefined);
    expect(fs.readFileSync(path.join(dataDir, 'server.pid'), 'utf8')).toMatch(new RegExp(`^${process.pid} `));
    await lock.release();
    expect(fs.existsSync(lockDir)).toBe(false);
  });
});
