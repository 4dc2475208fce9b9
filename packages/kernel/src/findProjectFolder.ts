import path from 'node:path';
import { PROJECT_ROOT_FOLDER } from './Root.js';
import { trackedFs } from '@loadout/files';

/**
 * What marks a folder as a project: its `.agents/` folder alone (what the command line takes from
 * the working folder, so a checkout without Loadout capabilities is no project of it), or that or a
 * `.git` entry (what `loadout mcp` takes: an agent started in any repository works in that repository).
 */
export type ProjectMarkers = 'project-folder' | 'project-folder-or-git';

/**
 * The project someone working in `start` is in: the nearest folder at or above it that holds a
 * `.agents/` folder (or, with `project-folder-or-git`, a `.git` entry); null when there is none. `home`
 * itself never counts: its `.agents` is the user's own folder (Codex reads `~/.agents/skills` as user
 * skills), not a project.
 */
export function findProjectFolder(start: string, home: string | null, markers: ProjectMarkers = 'project-folder-or-git'): string | null {
  let dir = path.resolve(start);
  const homeDir = home === null || home === '' ? null : path.resolve(home);
  for (;;) {
    if (dir !== homeDir && isProjectFolder(dir, markers)) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function isProjectFolder(dir: string, markers: ProjectMarkers): boolean {
  if (isFolder(path.join(dir, PROJECT_ROOT_FOLDER))) return true;
  return markers === 'project-folder-or-git' && trackedFs.existsSync(path.join(dir, '.git'));
}

function isFolder(dir: string): boolean {
  try {
    return trackedFs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
