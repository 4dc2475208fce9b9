import fs from 'node:fs';
import path from 'node:path';

/**
 * A change younger than this is not trusted to a stamp: two writes within one tick of the file
 * system's coarse clock can leave the same times and size (the rule the kernel's watch cache and
 * git's index apply too).
 */
export const RACY_MS = 1000;

/** The synchronous calls of `node:fs` whose first argument is a path the work depends on. */
const RECORDED_CALLS = ['lstatSync', 'statSync', 'readdirSync', 'openSync', 'readFileSync', 'existsSync', 'accessSync', 'opendirSync'] as const;

/**
 * What a synchronous piece of work asked the file system about, with how each path looked just
 * after the work: the identity and times of each path (and of a link's target), or that it was
 * missing. {@link unchanged} tells, by one stat per path, whether the work would now read the same,
 * so its result can be kept. A directory's times move when an entry is added, removed or renamed
 * in it, a file's when it is written, so a listing, a read and a lookup that found nothing are all
 * covered.
 */
export class PathStamps {
  private constructor(private readonly stamps: ReadonlyMap<string, string>) {}

  /**
   * Runs `work` (synchronous only: nothing else may run meanwhile) and records every path it
   * passed to the file system. `stamps` is null when something it touched changed since the work
   * started or too recently for its times to be trusted ({@link RACY_MS}; tests shorten it): then
   * the result must not be kept.
   */
  static record<T>(work: () => T, racyMs = RACY_MS): { readonly value: T; readonly stamps: PathStamps | null } {
    const startedAt = Date.now();
    const paths = new Set<string>();
    const value = withCallsRecorded(paths, work);
    const racyBefore = startedAt - racyMs;
    const stamps = new Map<string, string>();
    for (const file of paths) {
      const stamp = stampOf(file, racyBefore);
      if (stamp === null) return { value, stamps: null };
      stamps.set(file, stamp);
    }
    return { value, stamps: new PathStamps(stamps) };
  }

  /** How many paths the work depends on. */
  get size(): number {
    return this.stamps.size;
  }

  /** True when every path recorded looks as it did: the work would read the same again. */
  unchanged(): boolean {
    for (const [file, stamp] of this.stamps) if (stampOf(file, Infinity) !== stamp) return false;
    return true;
  }
}

/**
 * Runs `work` with the recorded calls of the shared `node:fs` module noting their path argument
 * first. Every reader in this package and the kernel's document reader call `fs.<name>Sync`
 * through that module, so nothing they look at escapes the record; the calls are put back however
 * `work` ends.
 */
function withCallsRecorded<T>(paths: Set<string>, work: () => T): T {
  const module = fs as unknown as Record<string, unknown>;
  const originals = new Map<string, unknown>();
  const note = (file: unknown): void => {
    if (typeof file === 'string') paths.add(path.resolve(file));
    else if (file instanceof URL && file.protocol === 'file:') paths.add(path.resolve(file.pathname));
  };
  const wrap = <F extends (...args: never[]) => unknown>(original: F): F =>
    function recorded(this: unknown, ...args: Parameters<F>): ReturnType<F> {
      note(args[0]);
      return original.apply(this, args) as ReturnType<F>;
    } as F;
  for (const name of RECORDED_CALLS) {
    originals.set(name, module[name]);
    module[name] = wrap(module[name] as (...args: never[]) => unknown);
  }
  const realpath = fs.realpathSync;
  const recordedRealpath = Object.assign(wrap(realpath), { native: wrap(realpath.native) });
  module.realpathSync = recordedRealpath;
  try {
    return work();
  } finally {
    for (const [name, original] of originals) module[name] = original;
    module.realpathSync = realpath;
  }
}

/**
 * One path as it is now: its identity and times (a link's, then its target's), `-` when missing,
 * `!CODE` when it cannot be looked at. Null when it changed after `racyBefore`.
 */
function stampOf(file: string, racyBefore: number): string | null {
  let stamp = '';
  for (const follow of [false, true]) {
    let stats: fs.Stats | undefined;
    try {
      stats = follow ? fs.statSync(file, { throwIfNoEntry: false }) : fs.lstatSync(file, { throwIfNoEntry: false });
    } catch (error) {
      return `${stamp}!${(error as NodeJS.ErrnoException).code ?? 'error'}`;
    }
    if (stats === undefined) return `${stamp}-`;
    if (stats.mtimeMs > racyBefore || stats.ctimeMs > racyBefore) return null;
    stamp += `${stats.ino}:${stats.size}:${stats.mode}:${stats.mtimeMs}:${stats.ctimeMs}|`;
    if (!stats.isSymbolicLink()) return stamp;
  }
  return stamp;
}
