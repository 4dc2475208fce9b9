import { trackedFs } from '@loadout/files';

/** A folder move and the registry change that goes with it. */
export interface RecordedMove {
  readonly from: string;
  readonly to: string;
  /** Runs work in the registry's write transaction (rolled back if it throws). */
  readonly transaction: (work: () => void) => void;
  /** Runs inside the transaction before the move (a name still free …). */
  readonly check?: () => void;
  /** Runs inside the transaction after the move: the row change. */
  readonly record: () => void;
  /** A missing `from` is no move at all, only the record (a folder someone removed by hand). */
  readonly optional?: boolean;
  /** Asked inside the transaction, before the move: false keeps the folder where it is (a clone other plugins still use). */
  readonly onlyIf?: () => boolean;
}

/**
 * Renames a folder and records it in one registry transaction: if the check, the record or the
 * commit throws, the folder is renamed back, so a folder and its row never disagree and the
 * registry's write lock also keeps two processes from taking one name. Whether it moved.
 */
export function moveWithRecord(move: RecordedMove): boolean {
  let moved = false;
  try {
    move.transaction(() => {
      move.check?.();
      if ((move.onlyIf?.() ?? true) && (move.optional !== true || exists(move.from))) {
        trackedFs.renameSync(move.from, move.to);
        moved = true;
      }
      move.record();
    });
  } catch (error) {
    if (moved) trackedFs.renameSync(move.to, move.from);
    throw error;
  }
  return moved;
}

/** lstat, not stat: a link that leads nowhere is still something to move. */
function exists(file: string): boolean {
  try {
    trackedFs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
