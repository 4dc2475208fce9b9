import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describeFileType } from './pathsInside.js';
import { ConflictError } from './LoadoutError.js';
import { trackedFs } from './ReadLog.js';

/**
 * A write Loadout will not make: through a link (`PATH_IS_LINK`), onto something that is not a
 * regular file or through something that is not a folder (`NOT_A_FILE`), or outside the root
 * (`PATH_OUTSIDE_ROOT`). Nothing was written.
 */
export class WriteRefusedError extends ConflictError {}

export interface AtomicWriteOptions {
  /** Permission bits of a file that does not exist yet (an existing file keeps its own). */
  readonly mode?: number;
  /**
   * Follow a link in the file's place and replace the file it leads to. Only for a link that is
   * the owner's own by the file's documented nature (a user's `~/.claude.json` kept in a dotfiles
   * folder): every other write refuses a link (`PATH_IS_LINK`).
   */
  readonly followLink?: boolean;
  /**
   * Asked with the path about to be replaced once the new bytes are on disk beside it, just before
   * the rename: false leaves the file as it is and the write returns false (a compare-and-swap for
   * a file another program edits too: the caller reads it again and redoes its edit).
   */
  readonly stillCurrent?: (target: string) => boolean;
}

/**
 * The one way Loadout writes a file: to a temporary file beside it, flushed, then renamed over the
 * target, so a reader sees the old bytes or the new ones and never half of either. A file that
 * exists keeps its permission bits and owner; `mode` sets them for a file that does not exist yet.
 *
 * A writer follows no link: a link (or a FIFO, a folder) in the file's place is refused before
 * anything is written, so editing one document never changes another one that a link shares. A
 * link put in after that check is replaced by the rename, never written through. `followLink` is
 * the one opt-in (see {@link AtomicWriteOptions}).
 *
 * @returns false when `stillCurrent` said the file changed, or the replaced file was written between
 *   the check and the rename (its bytes are then put back): nothing of the caller's is written; else true
 * @throws WriteRefusedError `PATH_IS_LINK`, `LINK_LOOP` or `NOT_A_FILE`, before anything is written
 */
export function writeFileAtomicSync(file: string, content: string | Buffer, options: AtomicWriteOptions = {}): boolean {
  const target = writableTarget(path.resolve(file), options.followLink === true);
  const existing = trackedFs.statSync(target, { throwIfNoEntry: false });
  trackedFs.mkdirSync(path.dirname(target), { recursive: true });
  // Named after the target, so whoever keeps the target keeps its temporary files too.
  const temporary = `${target}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const createMode = existing !== undefined ? 0o600 : (options.mode ?? 0o666);
  const fd = trackedFs.openSync(
    temporary,
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
    createMode,
  );
  let renamed = false;
  try {
    try {
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      for (let written = 0; written < bytes.length; ) written += fs.writeSync(fd, bytes, written, bytes.length - written);
      // A mode asked for, or the replaced file's, is set as it is: the one `open` takes is narrowed by the umask.
      if (existing !== undefined) {
        fs.fchmodSync(fd, existing.mode & 0o7777);
        keepOwner(fd, existing);
      } else if (options.mode !== undefined) {
        fs.fchmodSync(fd, options.mode);
      }
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (options.stillCurrent === undefined) {
      trackedFs.renameSync(temporary, target);
      renamed = true;
      return true;
    }
    // The file being replaced is held open across the check and the rename: a write another
    // program makes to it after the check read it (the moment before the rename) lands on it,
    // not on the new file, and would be lost with it. Seen there after the rename, its bytes are
    // put back and the write answers false, as if the check had seen it: the caller reads the
    // file again and redoes its edit on top.
    const replaced = existing === undefined ? null : openReplaced(target);
    try {
      const before = replaced === null ? null : fs.fstatSync(replaced, { bigint: true });
      if (!options.stillCurrent(target)) return false;
      trackedFs.renameSync(temporary, target);
      renamed = true;
      if (replaced === null || before === null) return true;
      const after = fs.fstatSync(replaced, { bigint: true });
      if (after.size === before.size && after.mtimeNs === before.mtimeNs) return true;
      writeFileAtomicSync(target, readWhole(replaced, Number(after.size)));
      return false;
    } finally {
      if (replaced !== null) fs.closeSync(replaced);
    }
  } finally {
    if (!renamed) trackedFs.rmSync(temporary, { force: true });
  }
}

/** The file about to be replaced, opened to read (never waiting on a FIFO); null when it cannot be. */
function openReplaced(target: string): number | null {
  try {
    return trackedFs.openSync(target, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
}

/** Every byte of an open file of `size` bytes, from its start. */
function readWhole(fd: number, size: number): Buffer {
  const bytes = Buffer.alloc(size);
  let read = 0;
  while (read < size) {
    const got = fs.readSync(fd, bytes, read, size - read, read);
    if (got === 0) break;
    read += got;
  }
  return bytes.subarray(0, read);
}

/**
 * The path the rename replaces: `file` itself, refused when a link, a folder or anything but a
 * regular file stands there; with `followLink`, the real path a link in its place leads to.
 */
function writableTarget(file: string, followLink: boolean): string {
  const stats = trackedFs.lstatSync(file, { throwIfNoEntry: false });
  if (stats === undefined) return file;
  if (stats.isSymbolicLink()) {
    if (!followLink) {
      throw new WriteRefusedError(
        'PATH_IS_LINK',
        `${file} is a link; Loadout does not write through links, so nothing was written (edit what it points to instead)`,
      );
    }
    let real: string;
    try {
      real = trackedFs.realpathSync(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP')
        throw new WriteRefusedError('LINK_LOOP', `${file} is a link that leads back to itself (a loop); nothing was written`, {
          cause: error,
        });
      if (code === 'ENOENT')
        throw new WriteRefusedError(
          'PATH_IS_LINK',
          `${file} is a link to nothing; nothing was written (make the file it points to first)`,
          { cause: error },
        );
      throw error;
    }
    return writableTarget(real, false);
  }
  if (!stats.isFile()) throw new WriteRefusedError('NOT_A_FILE', `${file} is ${describeFileType(stats)}; nothing was written`);
  return file;
}

/** Gives the new file the old one's owner when this process may (as root); as its owner, it already is. */
function keepOwner(fd: number, existing: fs.Stats): void {
  if (typeof process.getuid !== 'function' || (existing.uid === process.getuid() && existing.gid === process.getgid?.())) return;
  try {
    fs.fchownSync(fd, existing.uid, existing.gid);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'EINVAL') throw error;
  }
}
