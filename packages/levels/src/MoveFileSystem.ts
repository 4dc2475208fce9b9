import fs from 'node:fs';
import { token, writeFileAtomicSync } from '@loadout/kernel';

/**
 * The file operations a move is made of. The real one is node:fs; tests put another in its place
 * to make a rename fail with `EXDEV` (two file systems) or a copy lose its bytes, which a single
 * disk cannot produce on demand.
 *
 * @example
 * container.register(MoveFileSystem, { useValue: { ...nodeMoveFileSystem, rename: () => { throw exdev(); } } });
 */
export interface MoveFileSystem {
  /** `fs.renameSync`: atomic within one file system, `EXDEV` across two. */
  rename(from: string, to: string): void;
  /** Copies a file, or a folder with everything beneath it; never over an existing path. */
  copy(from: string, to: string): void;
  /** Removes a file, or a folder with everything beneath it; a missing path is fine. */
  remove(target: string): void;
  /** Writes a whole file atomically (the kernel's one atomic write). */
  write(file: string, content: Buffer): void;
  read(file: string): Buffer;
}
export const MoveFileSystem = token<MoveFileSystem>('levels.moveFileSystem');

/** {@link MoveFileSystem} on the real disk. */
export const nodeMoveFileSystem: MoveFileSystem = {
  rename: (from, to) => fs.renameSync(from, to),
  copy: (from, to) => fs.cpSync(from, to, { recursive: true, errorOnExist: true, force: false, preserveTimestamps: true, verbatimSymlinks: true }),
  remove: (target) => fs.rmSync(target, { recursive: true, force: true }),
  write: (file, content) => writeFileAtomicSync(file, content),
  read: (file) => fs.readFileSync(file),
};
