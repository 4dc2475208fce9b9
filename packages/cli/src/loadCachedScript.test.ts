import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeCacheFile, codeCacheUse, loadCachedScript, type CachedScriptFiles, writeCodeCache } from './loadCachedScript.js';

// A small CommonJS bundle with functions that only run when called, as the command's are: what the
// cache holds is what ran before it was made.
const SOURCE = `
const path = require('node:path');
function greet(name) { return 'hello ' + name + ' from ' + path.basename(__filename); }
function lazy(n) { let total = 0; for (let i = 0; i < n; i += 1) total += i; return total; }
module.exports = { greet, lazy, here: __dirname, same: module.exports === exports };
`;
// Another bundle of the very same length: V8 alone would take the first one's cache for it.
const OTHER = SOURCE.replace("'hello '", "'howdy '");

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loadout-code-cache-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function bundle(name: string, source: string, hash: string, folder = dir): CachedScriptFiles {
  const file = path.join(folder, name);
  fs.writeFileSync(file, source);
  return { bundle: file, bundleHash: hash, cache: `${file}.v8cache` };
}

/** Loads the bundle and calls into it, as a command would: what it answers, and what became of the cache. */
function run(files: CachedScriptFiles) {
  const loaded = loadCachedScript(files);
  const api = loaded.exports as { greet: (name: string) => string; lazy: (n: number) => number; here: string; same: boolean };
  return { answer: [api.greet('you'), api.lazy(10), api.here, api.same], use: loaded.cache, loaded };
}

/** Makes the cache as the build does: load, run, then keep what was compiled. */
function makeCache(files: CachedScriptFiles): Buffer {
  const { loaded } = run(files);
  const data = loaded.createCache();
  fs.writeFileSync(files.cache, codeCacheFile(files, data));
  return data;
}

const EXPECTED = ['hello you from app.cjs', 45];

describe('loadCachedScript', () => {
  it('runs the bundle as CommonJS and compiles it without a cache when there is none', () => {
    const files = bundle('app.cjs', SOURCE, 'a'.repeat(64));
    expect(codeCacheUse(files)).toBe('absent');
    const { answer, use } = run(files);
    expect(answer).toEqual([...EXPECTED, dir, true]);
    expect(use).toBe('absent');
  });

  it('uses a cache made for this bundle, and answers the same', () => {
    const files = bundle('app.cjs', SOURCE, 'a'.repeat(64));
    makeCache(files);
    const { answer, use } = run(files);
    expect(use).toBe('accepted');
    expect(answer).toEqual([...EXPECTED, dir, true]);
  });

  it('never offers V8 the cache of another bundle of the same length (its key names the bundle)', () => {
    const first = bundle('app.cjs', SOURCE, 'a'.repeat(64));
    makeCache(first);
    expect(OTHER.length).toBe(SOURCE.length);
    // The other bundle, in the first one's place, with the first one's cache beside it.
    const other = bundle('app.cjs', OTHER, 'b'.repeat(64));
    const { answer, use } = run(other);
    expect(use).toBe('foreign');
    expect(answer[0]).toBe('howdy you from app.cjs');
  });

  it('ignores a cache made by another Node or for another architecture', () => {
    const files = bundle('app.cjs', SOURCE, 'a'.repeat(64));
    const data = makeCache(files);
    for (const [from, to] of [
      [process.version, 'v99.0.0'],
      [` ${process.arch} `, ' elsewhere '],
    ] as const) {
      const text = codeCacheFile(files, data);
      const header = text
        .subarray(0, text.indexOf(0x0a) + 1)
        .toString('latin1')
        .replace(from, to);
      fs.writeFileSync(files.cache, Buffer.concat([Buffer.from(header, 'latin1'), data]));
      const { answer, use } = run(files);
      expect(use).toBe('foreign');
      expect(answer).toEqual([...EXPECTED, dir, true]);
    }
  });

  it('ignores a damaged or truncated cache, which V8 would otherwise deserialize and crash on', () => {
    const files = bundle('app.cjs', SOURCE, 'a'.repeat(64));
    makeCache(files);
    const whole = fs.readFileSync(files.cache);
    const damaged = Buffer.from(whole);
    damaged[damaged.length - 20] = (damaged[damaged.length - 20] as number) ^ 0xff;
    for (const bytes of [
      damaged,
      whole.subarray(0, whole.length - 100),
      whole.subarray(0, 10),
      Buffer.alloc(0),
      Buffer.alloc(4096, 0x61),
    ]) {
      fs.writeFileSync(files.cache, bytes);
      const { answer, use } = run(files);
      expect(use).toBe('foreign');
      expect(answer).toEqual([...EXPECTED, dir, true]);
    }
  });

  it('leaves V8 to refuse a cache whose key matches but whose data is for other source (and compiles)', () => {
    const files = bundle('app.cjs', SOURCE, 'a'.repeat(64));
    const elsewhere = bundle('longer.cjs', `${SOURCE}\n// longer`, 'c'.repeat(64));
    const data = makeCache(elsewhere);
    fs.writeFileSync(files.cache, codeCacheFile(files, data));
    const { answer, use } = run(files);
    expect(use).toBe('rejected');
    expect(answer).toEqual([...EXPECTED, dir, true]);
  });

  it('reads no cache through a link, nor one that is not a regular file', () => {
    const files = bundle('app.cjs', SOURCE, 'a'.repeat(64));
    const real = bundle('real.cjs', SOURCE, 'a'.repeat(64));
    makeCache(real);
    fs.symlinkSync(real.cache, files.cache);
    expect(run(files)).toMatchObject({ use: 'unreadable', answer: [...EXPECTED, dir, true] });
    fs.rmSync(files.cache);
    fs.mkdirSync(files.cache);
    expect(run(files)).toMatchObject({ use: 'unreadable', answer: [...EXPECTED, dir, true] });
    fs.rmSync(files.cache, { recursive: true });
    execFileSync('mkfifo', [files.cache]);
    expect(run(files)).toMatchObject({ use: 'unreadable', answer: [...EXPECTED, dir, true] });
  });

  it('names the bundle and its functions in stack traces, on the lines of the bundle', () => {
    const files = bundle('app.cjs', `module.exports = function thrower() {\n  throw new Error('boom');\n};\n`, 'd'.repeat(64));
    const first = loadCachedScript(files);
    fs.writeFileSync(files.cache, codeCacheFile(files, first.createCache()));
    const loaded = loadCachedScript(files);
    expect(loaded.cache).toBe('accepted');
    const error = (() => {
      try {
        (loaded.exports as unknown as () => void)();
      } catch (thrown) {
        return thrown as Error;
      }
      throw new Error('did not throw');
    })();
    const frame = error.stack?.split('\n')[1] ?? '';
    expect(frame).toContain('thrower');
    expect(frame).toContain(`${files.bundle}:2:9)`);
  });

  it('37 L12 names the folder a moved bundle runs from in stack traces, not the one its cache was made in, and uses one made there', () => {
    const source = `module.exports = function thrower() {\n  throw new Error('boom');\n};\n`;
    const [builtIn, movedTo] = [path.join(dir, 'built'), path.join(dir, 'moved')];
    for (const folder of [builtIn, movedTo]) fs.mkdirSync(folder);
    const built = bundle('app.cjs', source, 'e'.repeat(64), builtIn);
    makeCacheOf(built);
    // The bundle and its cache, copied as they are to where they will run.
    const moved = bundle('app.cjs', source, built.bundleHash, movedTo);
    fs.copyFileSync(built.cache, moved.cache);
    const frameOf = (files: CachedScriptFiles): { frame: string; use: string; loaded: ReturnType<typeof loadCachedScript> } => {
      const loaded = loadCachedScript(files);
      try {
        (loaded.exports as unknown as () => void)();
      } catch (thrown) {
        return { frame: (thrown as Error).stack?.split('\n')[1] ?? '', use: loaded.cache, loaded };
      }
      throw new Error('did not throw');
    };
    const first = frameOf(moved);
    expect(first.frame).toContain(`${moved.bundle}:2:9)`);
    expect(first.frame).not.toContain(builtIn);
    expect(first.use).toBe('moved');
    // What the build asks before its warm-up (`--if-needed`), compiling nothing; it says the same as a load.
    expect([codeCacheUse(moved), codeCacheUse(built)]).toEqual(['moved', 'accepted']);
    // What the build's warm-up does where the bundle lies now: a cache for it there.
    expect(writeCodeCache(moved, first.loaded.createCache())).toBe(true);
    expect(codeCacheUse(moved)).toBe('accepted');
    const again = frameOf(moved);
    expect(again.use).toBe('accepted');
    expect(again.frame).toContain(`${moved.bundle}:2:9)`);
    // The build's own cache still serves the bundle where it was built.
    expect(frameOf(built)).toMatchObject({ use: 'accepted', frame: expect.stringContaining(`${built.bundle}:2:9)`) });
  });
});

/** Makes the cache of a bundle that throws when called, as the build would (its top level compiled and run). */
function makeCacheOf(files: CachedScriptFiles): void {
  const loaded = loadCachedScript(files);
  fs.writeFileSync(files.cache, codeCacheFile(files, loaded.createCache()));
}
