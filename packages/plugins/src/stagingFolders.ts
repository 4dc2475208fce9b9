import crypto from 'node:crypto';
import path from 'node:path';
import { isProcessAlive, processStartTime, trackedFs } from '@loadout/files';

/** Names of the folders a clone waits in before it is placed, and goes to before it is removed. */
export const STAGING_PREFIX = '.tmp-';
export const TRASH_PREFIX = '.trash-';
/** Leftover folders whose maker is unknown (named before makers were recorded) are swept after this. */
const STALE_AFTER_MS = 24 * 60 * 60 * 1000;
/** `.tmp-<pid>.<start time>-…`: the process that made the folder. */
const OWNED = /^\.tmp-(\d+)\.(\d*)-/;
/** `.tmp-<owner>-old-<plugin>-<hex>`: a plugin's clone moved aside while an update puts the new one in place. */
const MOVED_ASIDE = /^\.tmp-\d+\.\d*-old-(.+)-[0-9a-f]{8}$/;

/** This process, as staging names record it. */
function ownerTag(): string {
  return `${process.pid}.${processStartTime(process.pid) ?? ''}`;
}

/**
 * Makes a private staging folder in `dir` named after this process, so that once the process is
 * gone (killed mid-clone, even with SIGKILL) the next command knows the folder is abandoned.
 */
export function makeStaging(dir: string): string {
  return trackedFs.mkdtempSync(path.join(dir, `${STAGING_PREFIX}${ownerTag()}-`));
}

/** Where an update moves a plugin's clone aside while the updated copy takes its place. */
export function asideName(dir: string, plugin: string): string {
  return path.join(dir, `${STAGING_PREFIX}${ownerTag()}-old-${plugin}-${crypto.randomBytes(4).toString('hex')}`);
}

function makerIsGone(name: string): boolean {
  const owner = OWNED.exec(name);
  if (owner === null) return false;
  const pid = Number(owner[1]);
  if (!isProcessAlive(pid)) return true;
  return owner[2] !== '' && processStartTime(pid) !== owner[2];
}

/**
 * Removes the staging and trash folders an interrupted install, update or uninstall left in `dir`:
 * at once when the process that made one is gone, after a day when its maker is unknown. A clone
 * an update had moved aside goes back where it was when nothing took its place (the update was
 * killed between its two renames), so a plugin is never left without its folder.
 */
export function sweepStale(dir: string): void {
  const now = Date.now();
  let names: string[];
  try {
    names = trackedFs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(STAGING_PREFIX) && !name.startsWith(TRASH_PREFIX)) continue;
    const full = path.join(dir, name);
    const stat = trackedFs.lstatSync(full, { throwIfNoEntry: false });
    if (stat === undefined) continue;
    if (!makerIsGone(name) && !(OWNED.exec(name) === null && now - stat.mtimeMs > STALE_AFTER_MS)) continue;
    const aside = MOVED_ASIDE.exec(name);
    const home = aside === null ? null : path.join(dir, aside[1] as string);
    if (home !== null && trackedFs.lstatSync(home, { throwIfNoEntry: false }) === undefined) {
      trackedFs.renameSync(full, home);
      continue;
    }
    trackedFs.rmSync(full, { recursive: true, force: true });
  }
}
