import fs from 'node:fs';

/**
 * How recent a change makes a stamp untrustworthy, in milliseconds. File times come from a coarse
 * clock: two writes within one tick can leave the same times and size, so a stamp of anything
 * changed less than this before it was taken is not trusted (the rule git applies to its index).
 */
export const RACY_MS = 1000;

/**
 * One path's stamp from its stats: inode, size, mode, modification and change times, which move
 * when it is written, replaced, made or has its times set back (that moves the change time).
 * Null when it changed after `racyBefore` (a time in ms), too recently for its times to be trusted.
 */
export function statStamp(stats: fs.Stats, racyBefore: number): string | null {
  if (changedAfter(stats, racyBefore)) return null;
  return `${stats.ino}:${stats.size}:${stats.mode}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

/** Whether `stats` moved after `racyBefore` (a time in ms): too recently for its stamp to be trusted. */
export function changedAfter(stats: fs.Stats, racyBefore: number): boolean {
  return stats.ctimeMs > racyBefore || stats.mtimeMs > racyBefore;
}

/** Whether a stamp {@link statStamp} made is of a folder (its mode's file type). */
export function isFolderStamp(stamp: string): boolean {
  const mode = Number(stamp.split(':', 3)[2]);
  return (mode & fs.constants.S_IFMT) === fs.constants.S_IFDIR;
}
