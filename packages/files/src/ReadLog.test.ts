import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LstatAnswer, type ReadLog, spoilReads, spoilsReads, trackedFs, withReadLog } from './ReadLog.js';
import { removeTestdirs, testdir } from './testing/index.js';

/** A log that keeps what it was told, one line a call. */
function collecting(): ReadLog & { readonly told: string[] } {
  const told: string[] = [];
  return {
    told,
    looked: (file: string, answer?: LstatAnswer) =>
      told.push(
        answer === undefined
          ? `looked ${file}`
          : `lstat ${file} ${'error' in answer ? 'error' : answer.stats === undefined ? 'missing' : 'found'}`,
      ),
    listed: (folder: string) => told.push(`listed ${folder}`),
    real: (file: string) => told.push(`real ${file}`),
    changed: (file: string, removal: boolean) => told.push(`${removal ? 'removed' : 'changed'} ${file}`),
    spoiled: (reason: string) => told.push(`spoiled: ${reason}`),
  };
}

let base = '';
beforeAll(() => {
  base = testdir({ folder: { 'a.txt': 'a\n' } });
});
afterAll(removeTestdirs);

describe('trackedFs with a ReadLog current', () => {
  it('tells each look, listing, real path and change with the absolute, normal path, then does what fs does', () => {
    const log = collecting();
    const file = path.join(base, 'folder', 'a.txt');
    const text = withReadLog(log, () => {
      trackedFs.existsSync(`${base}//folder/./a.txt`);
      trackedFs.readdirSync(path.join(base, 'folder'));
      trackedFs.realpathSync.native(file);
      trackedFs.renameSync(file, path.join(base, 'folder', 'b.txt'));
      trackedFs.renameSync(path.join(base, 'folder', 'b.txt'), file);
      trackedFs.rmSync(path.join(base, 'gone'), { force: true });
      return trackedFs.readFileSync(file, 'utf8');
    });
    expect(text).toBe('a\n');
    const b = path.join(base, 'folder', 'b.txt');
    expect(log.told).toEqual([
      `looked ${file}`,
      `listed ${path.join(base, 'folder')}`,
      `real ${file}`,
      `changed ${file}`,
      `changed ${b}`,
      `changed ${b}`,
      `changed ${file}`,
      `removed ${path.join(base, 'gone')}`,
      `looked ${file}`,
    ]);
  });

  it("tells an lstat with its answer, a failed one too, and throws fs's error", () => {
    const log = collecting();
    withReadLog(log, () => {
      trackedFs.lstatSync(base);
      expect(trackedFs.lstatSync(path.join(base, 'none'), { throwIfNoEntry: false })).toBeUndefined();
      expect(() => trackedFs.lstatSync(path.join(base, 'none'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    });
    expect(log.told).toEqual([`lstat ${base} found`, `lstat ${path.join(base, 'none')} missing`, `lstat ${path.join(base, 'none')} error`]);
  });

  it('tells an open by its flags: a read is a look, a write a change; a descriptor is nothing', () => {
    const log = collecting();
    const file = path.join(base, 'folder', 'a.txt');
    withReadLog(log, () => {
      fs.closeSync(trackedFs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW));
      const written = trackedFs.openSync(path.join(base, 'folder', 'c.txt'), 'w');
      trackedFs.writeFileSync(written, 'c\n');
      fs.closeSync(written);
    });
    expect(log.told).toEqual([`looked ${file}`, `changed ${path.join(base, 'folder', 'c.txt')}`]);
  });

  it('spoils the log for a process start and for what the caller says it cannot follow', () => {
    const log = collecting();
    const start = spoilsReads('a child process', (name: string) => `started ${name}`);
    const started = withReadLog(log, () => {
      spoilReads('a line on stderr');
      return start('true');
    });
    expect(started).toBe('started true');
    expect(log.told).toEqual(['spoiled: a line on stderr', 'spoiled: a child process']);
  });

  it('tells the log of the action that made the call, across awaits and timers, and no other', async () => {
    const first = collecting();
    const second = collecting();
    const one = path.join(base, 'folder', 'a.txt');
    const run = (log: ReadLog, file: string, wait: number) =>
      withReadLog(log, async () => {
        await sleep(wait);
        trackedFs.existsSync(file);
        await new Promise<void>((done) =>
          setTimeout(() => {
            trackedFs.statSync(file);
            done();
          }, wait),
        );
      });
    await Promise.all([run(first, one, 20), run(second, base, 5)]);
    trackedFs.existsSync(path.join(base, 'outside'));
    expect(first.told).toEqual([`looked ${one}`, `looked ${one}`]);
    expect(second.told).toEqual([`looked ${base}`, `looked ${base}`]);
  });

  it('calls fs as it is at the call, so what watches fs sees the call', () => {
    const holder = fs as unknown as Record<string, unknown>;
    const original = holder.existsSync;
    const seen: unknown[] = [];
    holder.existsSync = (file: unknown) => {
      seen.push(file);
      return true;
    };
    try {
      expect(trackedFs.existsSync('/nowhere')).toBe(true);
    } finally {
      holder.existsSync = original;
    }
    expect(seen).toEqual(['/nowhere']);
  });
});
