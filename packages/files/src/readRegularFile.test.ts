import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DocumentRefusedError } from './pathsInside.js';
import { emptyFileBytes, type FileBytes, readRegularFile, type RegularFileOptions } from './readRegularFile.js';
import { removeTestdirs, testdir } from './testing/index.js';

afterEach(removeTestdirs);

const tooLarge = (file: string): DocumentRefusedError => new DocumentRefusedError('TEST_TOO_LARGE', `${path.basename(file)} is too large`);
const reading: RegularFileOptions = { tooLarge };
const text = (into: FileBytes): string => into.buffer.toString('utf8', 0, into.length);

/** The code of what `read` throws. */
function codeOf(read: () => unknown): string | undefined {
  try {
    read();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

describe('readRegularFile', () => {
  it('reads a regular file and its mode, into a buffer of its size when the one given is smaller', () => {
    const root = testdir({ 'a.txt': 'hello' });
    fs.chmodSync(path.join(root, 'a.txt'), 0o640);
    const into = emptyFileBytes();

    expect(readRegularFile(root, path.join(root, 'a.txt'), 100, into, reading)).toBe(true);
    expect(text(into)).toBe('hello');
    expect(into.mode & 0o777).toBe(0o640);
    expect(into.buffer.length).toBe(6);
  });

  it('reuses a buffer that fits, so a caller reading many files allocates once', () => {
    const root = testdir({ 'long.txt': 'a longer text', 'short.txt': 'hi' });
    const into = emptyFileBytes();
    into.buffer = Buffer.alloc(64);
    const buffer = into.buffer;

    readRegularFile(root, path.join(root, 'long.txt'), 63, into, reading);
    expect(text(into)).toBe('a longer text');
    readRegularFile(root, path.join(root, 'short.txt'), 63, into, reading);
    expect(text(into)).toBe('hi');
    expect(into.buffer).toBe(buffer);
  });

  it('is false for a file that is not there, or under a file', () => {
    const root = testdir({ 'a.txt': 'x' });
    expect(readRegularFile(root, path.join(root, 'missing.txt'), 10, emptyFileBytes(), reading)).toBe(false);
    expect(readRegularFile(root, path.join(root, 'a.txt', 'below'), 10, emptyFileBytes(), reading)).toBe(false);
  });

  it('refuses a file over the limit with the caller’s own refusal, the limit itself is fine', () => {
    const root = testdir({ 'ten.txt': '0123456789' });
    const file = path.join(root, 'ten.txt');
    expect(codeOf(() => readRegularFile(root, file, 9, emptyFileBytes(), reading))).toBe('TEST_TOO_LARGE');
    const into = emptyFileBytes();
    expect(readRegularFile(root, file, 10, into, reading)).toBe(true);
    expect(text(into)).toBe('0123456789');
  });

  it('refuses a folder, a FIFO and a socket as NOT_A_FILE without waiting on them', async () => {
    const root = testdir({ folder: {} });
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const server = net.createServer();
    await new Promise<void>((done) => server.listen(path.join(root, 'socket'), done));
    try {
      for (const [name, kind] of [
        ['folder', 'a folder'],
        ['pipe', 'a FIFO'],
        ['socket', 'a socket'],
      ] as const) {
        expect(() => readRegularFile(root, path.join(root, name), 100, emptyFileBytes(), reading)).toThrow(
          new RegExp(`^${name}: is ${kind}`),
        );
        expect(codeOf(() => readRegularFile(root, path.join(root, name), 100, emptyFileBytes(), reading))).toBe('NOT_A_FILE');
      }
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it('follows a link that stays inside the root, and refuses one that leads out', () => {
    const outside = testdir({ 'secret.txt': 'secret' });
    const root = testdir({ 'target.txt': 'inside' });
    fs.symlinkSync(path.join(root, 'target.txt'), path.join(root, 'inner'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'outer'));
    const into = emptyFileBytes();

    expect(readRegularFile(root, path.join(root, 'inner'), 100, into, reading)).toBe(true);
    expect(text(into)).toBe('inside');
    expect(codeOf(() => readRegularFile(root, path.join(root, 'outer'), 100, emptyFileBytes(), reading))).toBe('PATH_OUTSIDE_ROOT');
  });

  it('refuses any final link when links are not followed', () => {
    const root = testdir({ 'target.txt': 'inside' });
    fs.symlinkSync(path.join(root, 'target.txt'), path.join(root, 'inner'));
    const refused = codeOf(() =>
      readRegularFile(root, path.join(root, 'inner'), 100, emptyFileBytes(), { ...reading, followLinks: false }),
    );
    expect(refused).toBe('PATH_OUTSIDE_ROOT');
  });

  it('is false for a link inside the root whose target is gone', () => {
    const root = testdir({});
    fs.symlinkSync(path.join(root, 'gone.txt'), path.join(root, 'dangling'));
    expect(readRegularFile(root, path.join(root, 'dangling'), 100, emptyFileBytes(), reading)).toBe(false);
  });
});
