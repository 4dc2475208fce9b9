import { spawn as untrackedSpawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type DocumentRead, readTextInside } from '@loadout/kernel';
import {
  childPath,
  DocumentRefusedError,
  emptyFileBytes,
  RACY_MS,
  readRegularFile,
  realpathInside,
  type RegularFileOptions,
  spoilsReads,
  statStamp,
  trackedFs,
} from '@loadout/files';
import { SKILL_DOCUMENT } from '@loadout/skills';
import { RuntimeChangedDuringApplyError } from './RuntimeErrors.js';

/** Starts a process; a ReadLog cannot follow what it reads, so it spoils the current one. */
const spawn = spoilsReads('a child process', untrackedSpawn);

/** One file of a skill, by its path inside the skill folder. */
export interface BundleFile {
  /** Relative path with `/` separators, e.g. `scripts/run.sh`. */
  readonly path: string;
  readonly content: Buffer;
  /** Permission bits to write it with (an executable script stays executable). */
  readonly mode: number;
}

/**
 * What a bundle looked like when it was read: the stamp ({@link statStamp}) of its own path (key
 * `''`) and of each folder and file below it, each taken before it was listed or read, and the hash
 * those files had. Only a bundle of plain folders and regular files, none changed within a second
 * of being stamped, has stamps: as long as every path still has its stamp, the bundle still hashes
 * to `hash` (an added, removed or renamed file moves its folder's stamp; an edit moves the file's).
 */
export interface BundleStamps {
  readonly hash: string;
  readonly files: Readonly<Record<string, string>>;
}

/** Everything that makes up one skill, and the hash that is its identity together with its name. */
export interface SkillBundle {
  /**
   * Sorted by path. A bundle known by its stamps ({@link bundleFromStamps}) reads them on first
   * use, and refuses with `RUNTIME_CHANGED_DURING_APPLY` when they no longer hash to `hash`.
   */
  readonly files: readonly BundleFile[];
  /** sha256 over every file's relative path and bytes, in path order. */
  readonly hash: string;
  /** Its stamps when it was read; null when they cannot be trusted (a link, a change within the last second). */
  readonly stamps: BundleStamps | null;
  /** The text of its `SKILL.md`; '' when it has none. */
  skillText(): string;
}

/** The most files one skill may hold. */
export const MAX_BUNDLE_FILES = 2000;
/** The most bytes one skill may hold. */
export const MAX_BUNDLE_BYTES = 64 * 1024 * 1024;
/** How deep a skill folder may nest. */
const MAX_BUNDLE_DEPTH = 16;

/** The file name every skill folder carries: the skill kind's declared document. */
export const SKILL_FILE = SKILL_DOCUMENT.file;

/**
 * The bundle hash: sha256 over a version tag, then each file's path, size and bytes in path order.
 * Modes and timestamps are not part of it: two folders with the same files are the same skill.
 */
export function hashBundle(files: readonly { path: string; content: Buffer }[]): string {
  const hash = createHash('sha256').update('loadout-bundle-v1\n');
  for (const file of sortFiles(files)) {
    hash.update(file.path).update('\0').update(String(file.content.length)).update('\0').update(file.content);
  }
  return hash.digest('hex');
}

function sortFiles<T extends { path: string }>(files: readonly T[]): T[] {
  return [...files].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}

/** What a walk gathers: the files, the bytes so far, and the stamps while every one can be trusted. */
interface Walk {
  readonly rootDir: string;
  readonly files: BundleFile[];
  bytes: number;
  readonly racyBefore: number;
  /** Null once a link or a too-recent change was met. */
  stamps: Record<string, string> | null;
}

/**
 * Reads a skill as a bundle. A folder skill is every file below `entry`; a single-file skill
 * (`skills/<file>.md`) is one `SKILL.md`, which is how it is written into a runtime. Links are
 * followed only while they stay inside `rootDir`; a link leading out, or a skill over the limits,
 * is refused with a `DocumentRefusedError`, as is an `entry` that is neither a folder nor a regular
 * file (a FIFO, a socket); only regular files are read. Returns null when `entry` does not exist.
 * Each path is stamped before it is read (see {@link BundleStamps}); `racyBefore` is the time
 * after which a change makes a stamp untrusted.
 */
export function readSkillBundle(rootDir: string, entry: string, racyBefore: number = Date.now() - RACY_MS): SkillBundle | null {
  const found = lstatInside(rootDir, entry);
  if (found === null) return null;
  const walk: Walk = { rootDir, files: [], bytes: 0, racyBefore, stamps: {} };
  stamp(walk, '', found);
  if (found.stats.isDirectory()) {
    walkFolder(walk, entry, found.real, '', 0);
  } else if (found.stats.isFile()) {
    walk.files.push(readFile(walk, entry, found, SKILL_FILE));
  } else {
    throw new DocumentRefusedError('NOT_A_FILE', `${path.basename(entry)}: is neither a folder nor a regular file; it is not read`);
  }
  const files = sortFiles(walk.files);
  const hash = hashBundle(files);
  return {
    files,
    hash,
    stamps: walk.stamps === null ? null : { hash, files: walk.stamps },
    skillText: () => files.find((file) => file.path === SKILL_FILE)?.content.toString('utf8') ?? '',
  };
}

/**
 * The bundle at `entry` as its stamps say it is, without reading it: null unless every stamped
 * path still has its stamp (a `lstat` each, none changed after `racyBefore`). Its files are read
 * only when asked for (to be written somewhere), and then must still hash to the stamped hash.
 *
 * `scanned` is what the session's scan read of its `SKILL.md` (or of the single-file skill) in
 * this very command, if it kept it. When the scan's `fstat` has the stamp kept for that file, the
 * scan stands for that file's `lstat` (taken a moment earlier in the same command, as a later
 * `lstat` would be taken a moment before the write) and its text is the bundle's: the file is
 * looked at once per command. A scan of a file changed since the stamp was kept, or changed too
 * recently to trust, has another stamp (or none): the file is checked and read as without a scan.
 * A change after the scan is a change during the command, as one after the `lstat` is: a copy
 * written from the bundle must still hash to `hash` ({@link SkillBundle.files}), and the next
 * command sees the change.
 */
export function bundleFromStamps(
  rootDir: string,
  entry: string,
  stamps: BundleStamps,
  racyBefore: number,
  scanned?: DocumentRead,
): SkillBundle | null {
  if (stamps.files[''] === undefined) return null;
  const scannedStamp = scanned === undefined ? null : statStamp(scanned.stats, racyBefore);
  let isFolder = false;
  for (const [relative, expected] of Object.entries(stamps.files)) {
    // A folder's SKILL.md the scan read with this very stamp: the scan's fstat stands for its lstat.
    if (relative === SKILL_FILE && scannedStamp === expected) continue;
    const stats = trackedFs.lstatSync(relative === '' ? entry : childPath(entry, relative), { throwIfNoEntry: false });
    if (stats === undefined || statStamp(stats, racyBefore) !== expected) return null;
    if (relative === '') isFolder = stats.isDirectory();
  }
  let files: readonly BundleFile[] | null = null;
  const bundle: SkillBundle = {
    hash: stamps.hash,
    stamps,
    get files(): readonly BundleFile[] {
      if (files === null) {
        const fresh = readSkillBundle(rootDir, entry);
        if (fresh?.hash !== stamps.hash)
          throw new RuntimeChangedDuringApplyError(`${path.basename(entry)} changed while applying; run apply again`);
        files = fresh.files;
      }
      return files;
    },
    skillText: () => {
      if (scanned !== undefined && scannedStamp === stamps.files[isFolder ? SKILL_FILE : '']) return scanned.text;
      try {
        return readTextInside(rootDir, isFolder ? path.join(entry, SKILL_FILE) : entry) ?? '';
      } catch (error) {
        // Larger than a document may be, say: the whole bundle is read, as a bundle may be larger.
        if (!(error instanceof DocumentRefusedError)) throw error;
        return bundle.files.find((file) => file.path === SKILL_FILE)?.content.toString('utf8') ?? '';
      }
    },
  };
  return bundle;
}

/** A path's stats, through a link only while it stays inside `rootDir`; null when it does not exist (or dangles). */
function lstatInside(rootDir: string, target: string): { real: string; stats: fs.Stats; linked: boolean } | null {
  const stats = trackedFs.lstatSync(target, { throwIfNoEntry: false });
  if (stats === undefined) return null;
  if (!stats.isSymbolicLink()) return { real: target, stats, linked: false };
  const real = realpathInside(rootDir, target);
  if (real === null) return null;
  const followed = trackedFs.statSync(real, { throwIfNoEntry: false });
  return followed === undefined ? null : { real, stats: followed, linked: true };
}

function stamp(walk: Walk, relative: string, found: { stats: fs.Stats; linked: boolean }): void {
  if (walk.stamps === null) return;
  const one = found.linked ? null : statStamp(found.stats, walk.racyBefore);
  if (one === null) walk.stamps = null;
  else walk.stamps[relative] = one;
}

function walkFolder(walk: Walk, dir: string, realDir: string, prefix: string, depth: number): void {
  if (depth > MAX_BUNDLE_DEPTH) {
    throw new DocumentRefusedError('BUNDLE_TOO_DEEP', `${prefix}: a skill may nest at most ${MAX_BUNDLE_DEPTH} folders`);
  }
  const names = trackedFs.readdirSync(realDir).sort();
  for (const name of names) {
    const logical = path.join(dir, name);
    const relative = prefix === '' ? name : `${prefix}/${name}`;
    const found = lstatInside(walk.rootDir, logical);
    if (found !== null && found.stats.isDirectory()) {
      stamp(walk, relative, found);
      walkFolder(walk, logical, found.real, relative, depth + 1);
    } else if (found !== null && found.stats.isFile()) {
      stamp(walk, relative, found);
      walk.files.push(readFile(walk, logical, found, relative));
    } else {
      // Holds nothing now (a dangling link, a FIFO, an entry gone since the listing), but a link's
      // target can appear without any stamped path moving: such a bundle is read every time.
      walk.stamps = null;
    }
  }
}

/** Reads one regular file found by {@link lstatInside}: opened without following a final link, never waiting on a FIFO. */
function readFile(walk: Walk, logical: string, found: { real: string; stats: fs.Stats }, relative: string): BundleFile {
  if (walk.files.length >= MAX_BUNDLE_FILES) {
    throw new DocumentRefusedError('BUNDLE_TOO_LARGE', `a skill may hold at most ${MAX_BUNDLE_FILES} files`);
  }
  const into = emptyFileBytes();
  // The path is already real: a link found at open time was put there while it was being read.
  if (!readRegularFile(walk.rootDir, found.real, MAX_BUNDLE_BYTES - walk.bytes, into, BUNDLE_FILE_READING)) {
    throw new RuntimeChangedDuringApplyError(`${path.basename(logical)} went away while being read; run apply again`);
  }
  walk.bytes += into.length;
  return { path: relative, content: into.buffer.subarray(0, into.length), mode: into.mode & 0o777 };
}

const BUNDLE_FILE_READING: RegularFileOptions = {
  followLinks: false,
  tooLarge: () => new DocumentRefusedError('BUNDLE_TOO_LARGE', `a skill may hold at most ${MAX_BUNDLE_BYTES} bytes`),
};

/**
 * Writes `bundle` into `dir`, which must not exist yet: the caller writes into a staging folder and
 * renames it into place, so a runtime never sees half a skill. Nothing is flushed here: the caller
 * flushes every bundle it staged at once ({@link flushWritten}) before it renames any into place.
 * Returns the files written.
 */
export function writeBundle(dir: string, bundle: SkillBundle): string[] {
  trackedFs.mkdirSync(dir, { recursive: false });
  const written: string[] = [];
  // Each folder is made once, not once per file in it: most skills are one SKILL.md in the folder just made.
  const made = new Set([dir]);
  for (const file of bundle.files) {
    const target = path.join(dir, ...file.path.split('/'));
    const folder = path.dirname(target);
    if (!made.has(folder)) {
      trackedFs.mkdirSync(folder, { recursive: true });
      made.add(folder);
    }
    const fd = trackedFs.openSync(target, 'wx', file.mode | 0o600);
    try {
      fs.writeSync(fd, file.content);
    } finally {
      fs.closeSync(fd);
    }
    written.push(target);
  }
  return written;
}

/**
 * Puts `files` (all under `dirs`) on disk before anything refers to them, so a crash never leaves a
 * renamed skill with empty files: one flush of each file system that holds them (`sync -f`, Linux's
 * syncfs, one process for every folder) rather than one fsync per file, which costs a device flush
 * each — 600 of them for 300 skills in two agents. Where `sync -f` is not available, each file is
 * fsynced. Resolves once they are on disk; the flush runs in its own process, so the caller may
 * stage more while it waits for the disk.
 */
export function flushWritten(dirs: readonly string[], files: readonly string[]): Promise<void> {
  if (files.length === 0) return Promise.resolve();
  const fsyncEach = (): void => {
    for (const file of files) {
      const fd = trackedFs.openSync(file, 'r');
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    }
  };
  if (process.platform !== 'linux') return new Promise((resolve) => resolve(fsyncEach()));
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (flushed: boolean): void => {
      if (settled) return;
      settled = true;
      try {
        if (!flushed) fsyncEach();
        resolve();
      } catch (error) {
        reject(error as Error);
      }
    };
    const sync = spawn('sync', ['-f', '--', ...new Set(dirs)], { stdio: 'ignore', timeout: 120_000 });
    sync.once('error', () => settle(false));
    sync.once('exit', (code) => settle(code === 0));
  });
}
