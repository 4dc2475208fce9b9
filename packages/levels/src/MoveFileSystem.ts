import { token } from '@loadout/kernel';
import { type EntryMoves, nodeEntryMoves, trackedFs, writeFileAtomicSync } from '@loadout/files';

/**
 * The file operations a move is made of. The real one is node:fs; tests put another in its place
 * to make a rename fail with `EXDEV` (two file systems) or a copy lose its bytes, which a single
 * disk cannot produce on demand.
 *
 * @example
 * container.register(MoveFileSystem, { useValue: { ...nodeMoveFileSystem, rename: () => { throw exdev(); } } });
 */
export interface MoveFileSystem extends EntryMoves {
  /** Writes a whole file atomically (the kernel's one atomic write). */
  write(file: string, content: Buffer): void;
  read(file: string): Buffer;
}
export const MoveFileSystem = token<MoveFileSystem>('levels.moveFileSystem');

/** {@link MoveFileSystem} on the real disk. */
export const nodeMoveFileSystem: MoveFileSystem = {
  ...nodeEntryMoves,
  write: (file, content) => writeFileAtomicSync(file, content),
  read: (file) => trackedFs.readFileSync(file),
};
