import fs from 'node:fs';
import path from 'node:path';
import { type FileReader, nodeFileReader, RACY_MS, statStamp, trackedFs } from '@loadout/files';

/**
 * What a synchronous piece of work asked the file system about — every path it passed to the
 * {@link FileReader} it was handed — with how each path looked just after the work: the identity
 * and times of each path (and of a link's target), or that it was missing. {@link unchanged} tells, by one stat per path, whether the work would now read the same,
 * so its result can be kept. A directory's times move when an entry is added, removed or renamed
 * in it, a file's when it is written, so a listing, a read and a lookup that found nothing are all
 * covered.
 */
export class PathStamps {
  private constructor(private readonly stamps: ReadonlyMap<string, string>) {}

  /**
   * Runs `work` (synchronous only: nothing else may run meanwhile) with a reader that notes each
   * path before it asks `node:fs`, and records them. `work` must look at the file system through
   * that reader only: a path it reads another way is not watched.
   * `stamps` is null when something it touched changed since the work started or too recently
   * for its times to be trusted ({@link RACY_MS}; tests shorten it): then the result must not be
   * kept.
   */
  static record<T>(work: (files: FileReader) => T, racyMs = RACY_MS): { readonly value: T; readonly stamps: PathStamps | null } {
    const startedAt = Date.now();
    const paths = new Set<string>();
    const value = work(recordingReader(paths, nodeFileReader));
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

/** A reader that adds each path it is asked about to `paths` (made absolute), then asks `files`. */
function recordingReader(paths: Set<string>, files: FileReader): FileReader {
  const noted =
    <A extends unknown[], R>(call: (file: string, ...rest: A) => R) =>
    (file: string, ...rest: A): R => {
      paths.add(path.resolve(file));
      return call(file, ...rest);
    };
  return {
    lstat: noted(files.lstat),
    stat: noted(files.stat),
    readdir: noted(files.readdir),
    readdirEntries: noted(files.readdirEntries),
    realpath: noted(files.realpath),
    realpathNative: noted(files.realpathNative),
    open: noted(files.open),
  };
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
      stats = follow ? trackedFs.statSync(file, { throwIfNoEntry: false }) : trackedFs.lstatSync(file, { throwIfNoEntry: false });
    } catch (error) {
      return `${stamp}!${(error as NodeJS.ErrnoException).code ?? 'error'}`;
    }
    if (stats === undefined) return `${stamp}-`;
    const one = statStamp(stats, racyBefore);
    if (one === null) return null;
    stamp += `${one}|`;
    if (!stats.isSymbolicLink()) return stamp;
  }
  return stamp;
}
