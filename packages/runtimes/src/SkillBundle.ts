import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DocumentRefusedError, realpathInside } from '@loadout/kernel';
import { SKILL_DOCUMENT } from '@loadout/skills';

/** One file of a skill, by its path inside the skill folder. */
export interface BundleFile {
  /** Relative path with `/` separators, e.g. `scripts/run.sh`. */
  readonly path: string;
  readonly content: Buffer;
  /** Permission bits to write it with (an executable script stays executable). */
  readonly mode: number;
}

/** Everything that makes up one skill, and the hash that is its identity together with its name. */
export interface SkillBundle {
  /** Sorted by path. */
  readonly files: readonly BundleFile[];
  /** sha256 over every file's relative path and bytes, in path order. */
  readonly hash: string;
  readonly bytes: number;
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

/**
 * Reads a skill as a bundle. A folder skill is every file below `entry`; a single-file skill
 * (`skills/<file>.md`) is one `SKILL.md`, which is how it is written into a runtime. Links are
 * followed only while they stay inside `rootDir`; a link leading out, or a skill over the limits,
 * is refused with a `DocumentRefusedError`. Returns null when `entry` does not exist.
 */
export function readSkillBundle(rootDir: string, entry: string): SkillBundle | null {
  const real = resolveInside(rootDir, entry);
  const stat = real === null ? undefined : fs.statSync(real, { throwIfNoEntry: false });
  if (stat === undefined) return null;
  const files: BundleFile[] = [];
  const budget = { bytes: 0 };
  if (stat.isDirectory()) {
    walk(rootDir, entry, '', 0, files, budget);
  } else {
    files.push(readFile(rootDir, entry, SKILL_FILE, budget, files.length));
  }
  const sorted = sortFiles(files);
  return { files: sorted, hash: hashBundle(sorted), bytes: budget.bytes };
}

/** The real path of `target` when it is inside `rootDir`; null when it does not exist. */
function resolveInside(rootDir: string, target: string): string | null {
  const stat = fs.lstatSync(target, { throwIfNoEntry: false });
  if (stat === undefined) return null;
  if (!stat.isSymbolicLink()) return target;
  return realpathInside(rootDir, target);
}

function walk(rootDir: string, dir: string, prefix: string, depth: number, files: BundleFile[], budget: { bytes: number }): void {
  if (depth > MAX_BUNDLE_DEPTH) {
    throw new DocumentRefusedError('BUNDLE_TOO_DEEP', `${prefix}: a skill may nest at most ${MAX_BUNDLE_DEPTH} folders`);
  }
  const real = resolveInside(rootDir, dir);
  if (real === null) return;
  const names = fs.readdirSync(real).sort();
  for (const name of names) {
    const logical = path.join(dir, name);
    const relative = prefix === '' ? name : `${prefix}/${name}`;
    const target = resolveInside(rootDir, logical);
    if (target === null) continue; // a dangling link holds nothing
    const stat = fs.statSync(target);
    if (stat.isDirectory()) walk(rootDir, logical, relative, depth + 1, files, budget);
    else if (stat.isFile()) files.push(readFile(rootDir, target, relative, budget, files.length));
  }
}

function readFile(rootDir: string, file: string, relative: string, budget: { bytes: number }, count: number): BundleFile {
  if (count >= MAX_BUNDLE_FILES) {
    throw new DocumentRefusedError('BUNDLE_TOO_LARGE', `a skill may hold at most ${MAX_BUNDLE_FILES} files`);
  }
  const real = resolveInside(rootDir, file) ?? file;
  const stat = fs.statSync(real);
  budget.bytes += stat.size;
  if (budget.bytes > MAX_BUNDLE_BYTES) {
    throw new DocumentRefusedError('BUNDLE_TOO_LARGE', `a skill may hold at most ${MAX_BUNDLE_BYTES} bytes`);
  }
  return { path: relative, content: fs.readFileSync(real), mode: stat.mode & 0o777 };
}

/**
 * Writes `bundle` into `dir`, which must not exist yet: the caller writes into a staging folder and
 * renames it into place, so a runtime never sees half a skill. Nothing is flushed here: the caller
 * flushes every bundle it staged at once ({@link flushWritten}) before it renames any into place.
 * Returns the files written.
 */
export function writeBundle(dir: string, bundle: SkillBundle): string[] {
  fs.mkdirSync(dir, { recursive: false });
  const written: string[] = [];
  for (const file of bundle.files) {
    const target = path.join(dir, ...file.path.split('/'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const fd = fs.openSync(target, 'wx', file.mode | 0o600);
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
 * Puts `files` (all under `dir`) on disk before anything refers to them, so a crash never leaves a
 * renamed skill with empty files: one flush of the file system that holds them (`sync -f`, Linux's
 * syncfs) rather than one fsync per file, which costs a journal commit each — 600 of them for 300
 * skills in two agents. Where `sync -f` is not available, each file is fsynced.
 */
export function flushWritten(dir: string, files: readonly string[]): void {
  if (files.length === 0) return;
  if (process.platform === 'linux' && spawnSync('sync', ['-f', dir], { stdio: 'ignore', timeout: 120_000 }).status === 0) return;
  for (const file of files) {
    const fd = fs.openSync(file, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
}
