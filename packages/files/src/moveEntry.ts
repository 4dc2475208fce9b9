import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { trackedFs } from './ReadLog.js';

/** The file operations a move is made of; a test hands others to make a rename fail with `EXDEV`. */
export interface EntryMoves {
  /** `fs.renameSync`: atomic within one file system, `EXDEV` across two. */
  rename(from: string, to: string): void;
  /** Copies a file, or a folder with everything beneath it (links kept as links); never over an existing path. */
  copy(from: string, to: string): void;
  /** Removes a file, or a folder with everything beneath it; a missing path is fine. */
  remove(target: string): void;
}

/** {@link EntryMoves} on the real disk. */
export const nodeEntryMoves: EntryMoves = {
  rename: (from, to) => trackedFs.renameSync(from, to),
  copy: (from, to) =>
    trackedFs.cpSync(from, to, { recursive: true, errorOnExist: true, force: false, preserveTimestamps: true, verbatimSymlinks: true }),
  remove: (target) => trackedFs.rmSync(target, { recursive: true, force: true }),
};

/** What a move left behind a copy is assembled under, beside its landing; every scan skips the name (it starts with a dot). */
export const MOVE_STAGING_PREFIX = '.loadout-move-';

export interface MoveEntryOptions {
  readonly files?: EntryMoves;
  /** After a copy across file systems, the source stays for the caller to remove once it has checked the landing. Default: removed. */
  readonly keepSource?: boolean;
  /** Called once a copy is whole under its staging name, before it is renamed into place (a test's kill point). */
  readonly onStaged?: () => void;
}

/**
 * The one way Loadout moves a file or a folder to a path that does not exist yet: one rename when
 * both ends are on one file system; across two (`EXDEV`), a copy assembled under a hidden name
 * beside `to` and renamed into place whole, so `to` is never half there and a killed copy leaves
 * only a hidden name. The source goes only once the copy is in place (unless `keepSource`).
 *
 * @returns `renamed`, or `copied` when the move crossed file systems
 */
export function moveEntry(from: string, to: string, options: MoveEntryOptions = {}): 'renamed' | 'copied' {
  const files = options.files ?? nodeEntryMoves;
  try {
    files.rename(from, to);
    return 'renamed';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
  }
  const staging = path.join(path.dirname(to), `${MOVE_STAGING_PREFIX}${randomUUID()}`);
  try {
    files.copy(from, staging);
    options.onStaged?.();
    files.rename(staging, to);
  } catch (error) {
    files.remove(staging);
    throw error;
  }
  if (options.keepSource !== true) files.remove(from);
  return 'copied';
}
