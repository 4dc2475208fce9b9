import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isNormalAbsolute } from './pathsInside.js';

/**
 * What a call made while a {@link ReadLog} was current looked at, told to it as the call is made
 * (the `apply` proof turns it into stamps). Every path is absolute and normal. A log hears only
 * calls made through {@link trackedFs}, the helpers of this package and {@link spoilsReads}: code
 * on the paths a log watches uses nothing else (`scripts/check-reads.mjs` holds it to that).
 */
export interface ReadLog {
  /**
   * A path looked at: read, stat'ed, tested, opened for reading. Told before the look; or, for an
   * `lstat`, after it with what it found (`answer`), which is then the look's own stamp.
   */
  looked(file: string, answer?: LstatAnswer): void;
  /** A folder whose entries were listed. Told before the listing. */
  listed(folder: string): void;
  /** A path whose real path was asked for: it depends on the path and on every folder above it. */
  real(file: string): void;
  /** A path written, made, renamed, linked or removed (`removal`: a removal, maybe of nothing). */
  changed(file: string, removal: boolean): void;
  /** Something the log cannot follow happened: a child process, a write to stderr, a path that is no path. */
  spoiled(reason: string): void;
}

/** What an `lstat` told: its stats (undefined: missing, with `throwIfNoEntry: false`), or its error. */
export type LstatAnswer = { readonly stats: fs.Stats | undefined } | { readonly error: unknown };

const current = new AsyncLocalStorage<ReadLog>();

/**
 * Runs `action` with `log` current: every tracked call it makes, and every call made by what it
 * starts (awaits, timers, callbacks), is told to `log`; nothing outside it is.
 */
export function withReadLog<T>(log: ReadLog, action: () => T): T {
  return current.run(log, action);
}

/** Tells the current log, if any, that something it cannot follow happened. */
export function spoilReads(reason: string): void {
  current.getStore()?.spoiled(reason);
}

/**
 * `start` (a `node:child_process` function, say), made to spoil the current log first: what a
 * child process reads is out of its sight. `const spawn = spoilsReads('a child process', spawnChild)`.
 */
export function spoilsReads<F extends (...args: never[]) => unknown>(reason: string, start: F): F {
  const spoiling = (...args: Parameters<F>): ReturnType<F> => {
    spoilReads(reason);
    return start(...args) as ReturnType<F>;
  };
  return spoiling as unknown as F;
}

/**
 * The absolute, normal path a path argument names; null for a descriptor. A path already absolute
 * and normal ({@link isNormalAbsolute}) is what `path.resolve` would return and is taken as it is:
 * most calls pass one.
 */
function absolute(raw: unknown): string | null {
  if (typeof raw === 'string') return isNormalAbsolute(raw) ? raw : path.resolve(raw);
  if (raw instanceof URL) return fileURLToPath(raw);
  if (Buffer.isBuffer(raw)) return path.resolve(raw.toString());
  return null;
}

type AnyFunction = (...args: unknown[]) => unknown;
type FsName = keyof typeof fs;

/** Tells `log` of a path argument: `tell` with its absolute path; a descriptor is nothing (its path was told when it was opened). */
function tellPath(log: ReadLog, raw: unknown, tell: (file: string) => void): void {
  if (typeof raw === 'number') return;
  const file = absolute(raw);
  if (file === null) log.spoiled('a path argument that is not a path');
  else tell(file);
}

/**
 * `fs[name]`, telling the current log first. The `fs` function is read at each call, not kept:
 * what watches `fs` from outside (a test's oracle, a tracer) still sees every call.
 */
function tracked<K extends FsName>(name: K, tell: (log: ReadLog, args: readonly unknown[]) => void): (typeof fs)[K] {
  const call = (...args: unknown[]): unknown => {
    const log = current.getStore();
    if (log !== undefined) tell(log, args);
    return Reflect.apply(fs[name] as AnyFunction, fs, args);
  };
  return call as unknown as (typeof fs)[K];
}

const looks = <K extends FsName>(name: K): (typeof fs)[K] =>
  tracked(name, (log, args) => tellPath(log, args[0], (file) => log.looked(file)));
const lists = <K extends FsName>(name: K): (typeof fs)[K] =>
  tracked(name, (log, args) => tellPath(log, args[0], (file) => log.listed(file)));
/** A change to the path in the first argument and, for `moves`, the one in the second (a rename's, copy's or link's other end). */
const changes = <K extends FsName>(name: K, removal: boolean, moves = false): (typeof fs)[K] =>
  tracked(name, (log, args) => {
    tellPath(log, args[0], (file) => log.changed(file, removal));
    if (moves) tellPath(log, args[1], (file) => log.changed(file, false));
  });
const real = <K extends FsName>(name: K): (typeof fs)[K] => tracked(name, (log, args) => tellPath(log, args[0], (file) => log.real(file)));

/** The open flags that may change the file opened. */
const WRITING_FLAGS = fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_APPEND;

function lstatSync(...args: unknown[]): unknown {
  const log = current.getStore();
  const options = args[1] as { bigint?: boolean } | undefined;
  const file = log === undefined || typeof args[0] === 'number' ? null : absolute(args[0]);
  if (log === undefined || file === null || options?.bigint === true) {
    if (log !== undefined) tellPath(log, args[0], (looked) => log.looked(looked));
    return Reflect.apply(fs.lstatSync as AnyFunction, fs, args);
  }
  // The `lstat` is the look, and its answer the stamp: the path is not stat'ed twice.
  let stats: fs.Stats | undefined;
  try {
    stats = Reflect.apply(fs.lstatSync as AnyFunction, fs, args) as fs.Stats | undefined;
  } catch (error) {
    log.looked(file, { error });
    throw error;
  }
  log.looked(file, { stats });
  return stats;
}

const realpathSync = Object.assign(real('realpathSync'), {
  native: ((...args: unknown[]): unknown => {
    const log = current.getStore();
    if (log !== undefined) tellPath(log, args[0], (file) => log.real(file));
    return Reflect.apply(fs.realpathSync.native as AnyFunction, fs, args);
  }) as typeof fs.realpathSync.native,
});

/**
 * The `node:fs` functions Loadout's code calls with a path, each telling the current
 * {@link ReadLog} what it is about to look at or change, then calling `fs`'s own; with no log
 * current one `getStore()` is their whole cost. Same signatures as `fs`'s.
 */
export const trackedFs = {
  accessSync: looks('accessSync'),
  existsSync: looks('existsSync'),
  statSync: looks('statSync'),
  readFileSync: looks('readFileSync'),
  readlinkSync: looks('readlinkSync'),
  readdirSync: lists('readdirSync'),
  opendirSync: lists('opendirSync'),
  lstatSync: lstatSync as typeof fs.lstatSync,
  realpathSync: realpathSync as typeof fs.realpathSync,
  openSync: tracked('openSync', (log, args) => {
    const flags = args[1];
    const reads = flags === undefined || flags === 'r' || (typeof flags === 'number' && (flags & WRITING_FLAGS) === 0);
    tellPath(log, args[0], (file) => (reads ? log.looked(file) : log.changed(file, false)));
  }),
  appendFileSync: changes('appendFileSync', false),
  chmodSync: changes('chmodSync', false),
  copyFileSync: changes('copyFileSync', false, true),
  cpSync: changes('cpSync', false, true),
  linkSync: changes('linkSync', false, true),
  mkdirSync: changes('mkdirSync', false),
  mkdtempSync: changes('mkdtempSync', false),
  renameSync: changes('renameSync', false, true),
  rmdirSync: changes('rmdirSync', true),
  rmSync: changes('rmSync', true),
  symlinkSync: changes('symlinkSync', false, true),
  truncateSync: changes('truncateSync', false),
  unlinkSync: changes('unlinkSync', true),
  utimesSync: changes('utimesSync', false),
  writeFileSync: changes('writeFileSync', false),
};
