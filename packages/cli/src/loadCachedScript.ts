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
 * The first line of a cache file: which bundle, Node and architecture it was made for, and the length
 * and SHA-256 of the V8 data after it. V8 itself only checks the source's length, its own version and
 * flags, so a cache made for another bundle of the same length would be taken: the key keeps it out.
 */
function cacheHeader(bundleHash: string, data: Buffer | undefined): string {
  const integrity = data === undefined ? '' : ` ${data.length} ${crypto.createHash('sha256').update(data).digest('hex')}`;
  return `loadout-v8-cache 1 ${bundleHash} ${process.version} ${process.arch}${integrity}\n`;
}

const MAX_HEADER = 256;
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
  return bytes.toString('latin1', 0, end + 1) === cacheHeader(files.bundleHash, data) ? { data, use: 'accepted' } : { use: 'foreign' };
}

/** A cache file's content: its header, then V8's data. */
export function codeCacheFile(bundleHash: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(cacheHeader(bundleHash, data), 'latin1'), data]);
}

/**
 * Compiles and runs the CommonJS bundle as Node would (its own `require`, `module`, `__filename`,
 * `__dirname`), with its code cache when the cache was made for it. Stack traces name the bundle.
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
