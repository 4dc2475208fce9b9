import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireFileLock, FileLockError, withFileLock } from './FileLock.js';
import { removeTestdirs, testdir } from './testing/index.js';

afterEach(removeTestdirs);

const WAIT = { retries: 60, factor: 1.3, minTimeout: 10, maxTimeout: 100, randomize: true };

describe('withFileLock', () => {
  it('runs one holder at a time and leaves no lock behind', async () => {
    const dir = testdir();
    const target = path.join(dir, 'counter');
    fs.writeFileSync(target, '0');
    const inside: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, () =>
        withFileLock(
          target,
          async () => {
            inside.push(1);
            expect(inside).toHaveLength(1);
            const value = Number(fs.readFileSync(target, 'utf8'));
            await new Promise((done) => setTimeout(done, 5));
            fs.writeFileSync(target, String(value + 1));
            inside.pop();
          },
          { retries: WAIT },
        ),
      ),
    );
    expect(fs.readFileSync(target, 'utf8')).toBe('6');
    expect(fs.existsSync(`${target}.lock`)).toBe(false);
  });

  it('creates the folder that holds the target', async () => {
    const target = path.join(testdir(), 'data', 'transfers');
    await expect(withFileLock(target, () => fs.existsSync(`${target}.lock`))).resolves.toBe(true);
  });

  it('passes the work’s own error through and still releases', async () => {
    const target = path.join(testdir(), 'config.json');
    await expect(
      withFileLock(target, () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(fs.existsSync(`${target}.lock`)).toBe(false);
  });

  it('refuses a lock another holder keeps, as FILE_LOCK_BUSY or the caller’s own error', async () => {
    const target = path.join(testdir(), 'config.json');
    const held = await acquireFileLock(target);
    try {
      await expect(withFileLock(target, () => 'never')).rejects.toMatchObject({ code: 'FILE_LOCK_BUSY', category: 'failed' });
      const mapped = withFileLock(target, () => 'never', { lockError: (error) => new Error(`busy: ${error.code}`, { cause: error }) });
      await expect(mapped).rejects.toThrow('busy: FILE_LOCK_BUSY');
    } finally {
      await held.release();
    }
  });

  it('reports a lock lost while the work ran, after the work', async () => {
    const target = path.join(testdir(), 'config.json');
    const lost: Error[] = [];
    const run = withFileLock(
      target,
      async () => {
        fs.rmSync(`${target}.lock`, { recursive: true });
        await new Promise((done) => setTimeout(done, 1500));
        return 'done';
      },
      { stale: 2000, update: 1000, onCompromised: (error) => lost.push(error) },
    );
    await expect(run).rejects.toBeInstanceOf(FileLockError);
    await expect(run).rejects.toMatchObject({ code: 'FILE_LOCK_COMPROMISED' });
    expect(lost).toHaveLength(1);
  });
});

describe('acquireFileLock', () => {
  it('holds until released, then lets the next holder in', async () => {
    const target = path.join(testdir(), 'server');
    const lock = await acquireFileLock(target, { stale: 5000, update: 1000 });
    expect(lock.path).toBe(`${target}.lock`);
    expect(lock.compromised).toBeNull();
    await expect(acquireFileLock(target)).rejects.toMatchObject({ code: 'FILE_LOCK_BUSY' });
    await lock.release();
    const next = await acquireFileLock(target);
    await next.release();
  });

  it('takes over a lock its holder stopped refreshing', async () => {
    const target = path.join(testdir(), 'server');
    fs.mkdirSync(`${target}.lock`);
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(`${target}.lock`, old, old);
    const lock = await acquireFileLock(target, { stale: 5000 });
    await lock.release();
  });
});
