import fs from 'node:fs';
import path from 'node:path';
import { describeFileType, DocumentRefusedError, OPEN_FLAGS, realpathInside, relativeInside } from './pathsInside.js';
import { type FileReader, nodeFileReader } from './FileReader.js';

/**
 * Where {@link readRegularFile} puts a file: its bytes are `buffer`'s first `length`, `mode` is the
 * mode of what was opened. A caller that reads many files hands the same one every time, so its
 * buffer is allocated once; one that keeps the bytes hands a fresh one per file.
 */
export interface FileBytes {
  buffer: Buffer;
  length: number;
  mode: number;
  /** The `fstat` of what was opened, taken before it was read. */
  stats?: fs.Stats;
}

/** A {@link FileBytes} with no buffer yet: the first read allocates one the size of its file. */
export function emptyFileBytes(): FileBytes {
  return { buffer: EMPTY, length: 0, mode: 0 };
}

const EMPTY = Buffer.alloc(0);

export interface RegularFileOptions {
  /** The refusal of a file over the limit, by its path: each caller names its own (`DOCUMENT_TOO_LARGE`, `BUNDLE_TOO_LARGE`). */
  readonly tooLarge: (file: string) => Error;
  /**
   * A final link in `file`'s place is followed when its real path stays inside `root` (true, the
   * default), or refused as `PATH_OUTSIDE_ROOT` (false: for a path the caller already made real,
   * so a link there was put in while it was being read).
   */
  readonly followLinks?: boolean;
  /** Every path looked at goes through it (see {@link FileReader}). */
  readonly files?: FileReader;
}

/**
 * The one way Loadout reads a file that lives under a root it does not own: open it without
 * following a final link and without waiting on a FIFO's writer ({@link OPEN_FLAGS}), `fstat`
 * what was opened, refuse anything but a regular file (`NOT_A_FILE`, without reading it) and
 * anything over `limit` bytes (`options.tooLarge`), then read it into `into`. A link is followed
 * only while its real target stays inside `root` (`PATH_OUTSIDE_ROOT`, `LINK_LOOP` otherwise).
 * Returns false when the file does not exist.
 *
 * A short read means the end of a regular file, so a file that fits `into.buffer` costs one read;
 * a buffer too small for it is replaced by one of the file's size (at most the limit) plus one
 * byte, the byte that shows a file grown past its limit since the `fstat`.
 */
export function readRegularFile(root: string, file: string, limit: number, into: FileBytes, options: RegularFileOptions): boolean {
  const files = options.files ?? nodeFileReader;
  let fd: number;
  try {
    fd = openFile(root, file, file, OPEN_FLAGS, files);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    if (code !== 'ELOOP') throw error;
    if (options.followLinks === false) {
      throw new DocumentRefusedError(
        'PATH_OUTSIDE_ROOT',
        `${shownName(root, file)}: was replaced by a link while being read; it is not read`,
      );
    }
    const real = realpathInside(root, file, files);
    if (real === null) return false;
    fd = openFile(root, file, real, OPEN_FLAGS & ~fs.constants.O_NOFOLLOW, files);
  }
  try {
    const stats = fs.fstatSync(fd);
    if (!stats.isFile()) throw notAFile(root, file, stats);
    if (stats.size > limit) throw options.tooLarge(file);
    if (into.buffer.length <= Math.min(stats.size, limit)) into.buffer = Buffer.allocUnsafe(Math.min(stats.size, limit) + 1);
    let length = 0;
    for (;;) {
      const wanted = Math.min(into.buffer.length, limit + 1) - length;
      const read = fs.readSync(fd, into.buffer, length, wanted, null);
      length += read;
      if (length > limit) throw options.tooLarge(file);
      if (read < wanted) break;
      // The file grew since the fstat and fills the buffer: read on into a bigger one.
      const bigger = Buffer.allocUnsafe(Math.min(into.buffer.length * 2, limit + 1));
      into.buffer.copy(bigger, 0, 0, length);
      into.buffer = bigger;
    }
    into.length = length;
    into.mode = stats.mode;
    into.stats = stats;
    return true;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Opens `target` (`file` or its real path). A socket cannot be opened at all (`ENXIO`, as a device
 * without its driver): it is refused as what it is, like any other file that is not a regular one.
 */
function openFile(root: string, file: string, target: string, flags: number, files: FileReader): number {
  try {
    return files.open(target, flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error;
    throw notAFile(root, file, files.lstat(target));
  }
}

function notAFile(root: string, file: string, stats: fs.Stats): DocumentRefusedError {
  return new DocumentRefusedError(
    'NOT_A_FILE',
    `${shownName(root, file)}: is ${describeFileType(stats)}, not a regular file; it is not read`,
  );
}

/** How a refusal names the file: its path inside the root, or its name. */
function shownName(root: string, file: string): string {
  return relativeInside(root, file) || path.basename(file);
}
