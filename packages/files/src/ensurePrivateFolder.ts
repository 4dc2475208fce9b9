import { trackedFs } from './ReadLog.js';

/** The mode of the data folder: only its owner may list or enter it. */
export const PRIVATE_FOLDER_MODE = 0o700;
/** The mode of a file Loadout keeps in the data folder (the database, the token …). */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes `dir` (and its missing parents) a folder only its owner can open, and narrows an existing
 * one this process owns to {@link PRIVATE_FOLDER_MODE}: the data folder holds the database, the
 * server token and the trash, none of which another local user should read. A folder someone else
 * owns is left as it is (the process could not change it anyway).
 */
export function ensurePrivateFolder(dir: string): void {
  trackedFs.mkdirSync(dir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  narrowMode(dir, PRIVATE_FOLDER_MODE);
}

/**
 * Takes group and other permissions away from `target` when this process owns it and it has any.
 * A missing target is fine.
 */
export function narrowMode(target: string, mode: number): void {
  const stats = trackedFs.statSync(target, { throwIfNoEntry: false });
  if (stats === undefined || (stats.mode & 0o077) === 0) return;
  if (typeof process.getuid === 'function' && stats.uid !== process.getuid()) return;
  trackedFs.chmodSync(target, mode);
}
