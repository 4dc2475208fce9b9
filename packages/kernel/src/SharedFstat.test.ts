import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FSTAT_FIELDS, SharedFstat } from './SharedFstat.js';
import { removeTestdirs, testdir } from './testing/index.js';

const opened: number[] = [];
afterEach(() => {
  for (const fd of opened.splice(0)) fs.closeSync(fd);
  removeTestdirs();
});

/** Descriptors of `count` files of different sizes, held open. */
function descriptors(count: number): { files: string[]; fds: number[] } {
  const dir = testdir(Object.fromEntries(Array.from({ length: count }, (_, i) => [`doc-${i}.md`, 'x'.repeat(i + 1)])));
  const files = Array.from({ length: count }, (_, i) => path.join(dir, `doc-${i}.md`));
  const fds = files.map((file) => fs.openSync(file, 'r'));
  opened.push(...fds);
  return { files, fds };
}

/**
 * Calls until the helper thread takes its part (the first calls answer null while it starts), then
 * waits for every number.
 */
async function shared(helper: SharedFstat, fds: readonly number[]): Promise<Float64Array> {
  for (let tries = 0; tries < 200; tries += 1) {
    const run = helper.begin(fds);
    if (run !== null) {
      for (let i = 0; i < fds.length; i += 1) expect(run.has(i * FSTAT_FIELDS)).toBe(true);
      return run.numbers;
    }
    await new Promise((done) => setTimeout(done, 10));
  }
  throw new Error('the helper thread never answered');
}

describe('SharedFstat', () => {
  it('answers null until its thread is ready, then each descriptor’s numbers, from both parts', async () => {
    const helper = new SharedFstat();
    try {
      const { fds } = descriptors(9);
      expect(helper.begin(fds)).toBeNull();
      const numbers = await shared(helper, fds);
      fds.forEach((fd, i) => {
        const stats = fs.fstatSync(fd);
        const at = i * FSTAT_FIELDS;
        expect([...numbers.subarray(at, at + FSTAT_FIELDS)]).toEqual([1, stats.ino, stats.size, stats.mode, stats.mtimeMs, stats.ctimeMs, stats.nlink]);
      });
    } finally {
      helper.close();
    }
  });

  it('sees what changed since its last answer, and marks a descriptor it cannot stat', async () => {
    const helper = new SharedFstat();
    try {
      const { files, fds } = descriptors(6);
      await shared(helper, fds);
      // One file written longer and given one more link, and a descriptor closed since: seen from either part.
      fs.appendFileSync(files[5] as string, 'more');
      fs.linkSync(files[5] as string, `${files[5]}.link`);
      const closed = fs.openSync(files[0] as string, 'r');
      fs.closeSync(closed);
      const numbers = await shared(helper, [...fds, closed]);
      const last = 5 * FSTAT_FIELDS;
      expect(numbers[last + 2]).toBe(6 + 4);
      expect(numbers[last + 6]).toBe(2);
      expect(numbers[6 * FSTAT_FIELDS]).toBe(0);
    } finally {
      helper.close();
    }
  });

  it('stats its own part before it returns and keeps at least a tenth of the list each, however the split adapts', async () => {
    const helper = new SharedFstat();
    try {
      const { fds } = descriptors(20);
      for (let round = 0; round < 5; round += 1) {
        await shared(helper, fds);
        const run = helper.begin(fds);
        expect(run).not.toBeNull();
        // This thread's part (at least 2 of 20) is in before anything waits; not all of it is.
        expect(run?.hasNow(0)).toBe(true);
        expect(run?.hasNow(1 * FSTAT_FIELDS)).toBe(true);
        expect(run?.numbers[1 * FSTAT_FIELDS + 2]).toBe(2);
        expect(run?.has(19 * FSTAT_FIELDS)).toBe(true);
        expect(run?.numbers[19 * FSTAT_FIELDS + 2]).toBe(20);
      }
    } finally {
      helper.close();
    }
  });

  it('answers null for good once closed', async () => {
    const helper = new SharedFstat();
    const { fds } = descriptors(4);
    await shared(helper, fds);
    helper.close();
    expect(helper.begin(fds)).toBeNull();
    await new Promise((done) => setTimeout(done, 30));
    expect(helper.begin(fds)).toBeNull();
  });
});
