import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

// The bundled command is one CommonJS file compiled here with V8's code cache: the cache holds the
// bytecode of what a representative run compiled (made by `pnpm build`), so a command starts without
// parsing and compiling most of the bundle again. The cache is only ever an optimisation: whatever is
// wrong with it, the bundle is compiled from its text and the command runs the same.

/** What became of the code cache for one load, for tests and `LOADOUT_DEBUG_CODE_CACHE`. */
export type CodeCacheUse =
  /** No cache file beside the bundle. */
  | 'absent'
  /** A cache file that could not be read as one (a link, not a regular file, an I/O error). */
  | 'unreadable'
  /** A cache made for another bundle, another Node or another architecture, or damaged: not offered to V8. */
  | 'foreign'
  /**
   * A cache made for this bundle where it was before it was moved (or where it was built): not
   * offered to V8, whose cached script keeps the file name it was made under, so every stack trace
   * would name that folder instead of this one. The build's warm-up run where the bundle now lies
   * makes one for here (`scripts/warmCodeCache.mjs`).
   */
  | 'moved'
  /** Offered to V8, which refused it (its own version, flags or source length checks). */
  | 'rejected'
  /** Used. */
  | 'accepted';

export interface CachedScriptFiles {
  /** The CommonJS bundle. */
  readonly bundle: string;
  /** The bundle's content hash, fixed when it was built. */
  readonly bundleHash: string;
  /** Where its code cache is (or is written). */
  readonly cache: string;
}

export interface LoadedScript {
  /** The bundle's `module.exports`. */
  readonly exports: Record<string, unknown>;
  readonly cache: CodeCacheUse;
  /** Makes the cache of everything compiled so far (the bundle's top level and what ran since). */
  createCache(): Buffer;
}

/**
 * The first line of a cache file: which bundle, Node and architecture it was made for, the SHA-256 of
 * the bundle's path, and the length and SHA-256 of the V8 data after it. V8 itself only checks the
 * source's length, its own version and flags, so a cache made for another bundle of the same length
 * would be taken: the key keeps it out. The path is in it because V8's cached script carries the
 * file name it was compiled under, which stack traces then name (Node 20's V8 does not take the new
 * one): a cache is used only at the path it was made for.
 */
function cacheHeader(files: CachedScriptFiles, data: Buffer, bundlePath = sha256(files.bundle)): string {
  return `${cacheKey(files.bundleHash)} ${bundlePath} ${data.length} ${sha256(data)}\n`;
}

/** What a cache's header starts with for this bundle, Node and architecture, wherever the bundle is. */
function cacheKey(bundleHash: string): string {
  return `loadout-v8-cache 2 ${bundleHash} ${process.version} ${process.arch}`;
}

function sha256(data: Buffer | string): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

const MAX_HEADER = 512;
// A cache is read from where the bundle is; a link or anything but a regular file is refused, and
// opening never waits on a FIFO.
const OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/** The V8 data of `files.cache` when it was made for this bundle, Node and architecture, or why not. */
function readCache(files: CachedScriptFiles): { data?: Buffer; use: CodeCacheUse } {
  let bytes: Buffer;
  try {
    const fd = fs.openSync(files.cache, OPEN_FLAGS);
    try {
      if (!fs.fstatSync(fd).isFile()) return { use: 'unreadable' };
      bytes = fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    return { use: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : 'unreadable' };
  }
  const end = bytes.subarray(0, MAX_HEADER).indexOf(0x0a);
  if (end < 0) return { use: 'foreign' };
  const data = bytes.subarray(end + 1);
  const header = bytes.toString('latin1', 0, end + 1);
  if (header === cacheHeader(files, data)) return { data, use: 'accepted' };
  // Whole and made for this bundle, but at another path.
  const madeAt = header.split(' ')[5] ?? '';
  return { use: /^[0-9a-f]{64}$/.test(madeAt) && header === cacheHeader(files, data, madeAt) ? 'moved' : 'foreign' };
}

/**
 * Whether the cache beside the bundle was made for it, here (`accepted` then means V8 is offered
 * it; V8's own checks come when it compiles), read without compiling anything: the build asks it
 * after a cached build was restored, which may have brought a cache made in another checkout.
 */
export function codeCacheUse(files: CachedScriptFiles): CodeCacheUse {
  return readCache(files).use;
}

/** A cache file's content for the bundle `files` names: its header, then V8's data. */
export function codeCacheFile(files: CachedScriptFiles, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(cacheHeader(files, data), 'latin1'), data]);
}

/**
 * Writes `data` as the cache of `files.bundle`, whole or not at all (a new file renamed over the
 * cache). Returns false when the folder does not let it (a read-only install): the command then
 * keeps compiling from the bundle's text, as it would without a cache.
 */
export function writeCodeCache(files: CachedScriptFiles, data: Buffer): boolean {
  const temp = `${files.cache}.${process.pid}.tmp`;
  try {
    // A new file of our own (never through a link someone left at the temporary name).
    const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o644);
    try {
      fs.writeFileSync(fd, codeCacheFile(files, data));
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, files.cache);
    return true;
  } catch {
    fs.rmSync(temp, { force: true });
    return false;
  }
}

/**
 * Compiles and runs the CommonJS bundle as Node would (its own `require`, `module`, `__filename`,
 * `__dirname`), with its code cache when the cache was made for it, there. Stack traces name the
 * bundle where it is.
 */
export function loadCachedScript(files: CachedScriptFiles): LoadedScript {
  // The bundle is ASCII (esbuild escapes the rest; the build checks), so latin1 reads it as is, faster.
  const source = fs.readFileSync(files.bundle, 'latin1');
  const found = readCache(files);
  // Node's own wrapper, on the bundle's first line so line numbers hold.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: files.bundle,
    cachedData: found.data,
  });
  const cache: CodeCacheUse = found.data === undefined ? found.use : script.cachedDataRejected === true ? 'rejected' : 'accepted';
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {} as Record<string, unknown> };
  wrapper.call(module.exports, module.exports, createRequire(files.bundle), module, files.bundle, path.dirname(files.bundle));
  return { exports: module.exports, cache, createCache: () => script.createCachedData() };
}
