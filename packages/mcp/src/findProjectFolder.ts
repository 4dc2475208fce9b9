import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT_FOLDER } from '@loadout/kernel';

/**
 * The project an agent working in `start` is in: the nearest folder at or above it that holds a
 * `.agents/` folder or a `.git` entry; null when there is none. `home` itself never counts: its
 * `.agents` is the user's own folder (Codex reads `~/.agents/skills` as user skills), not a project.
 */
export function findProjectFolder(start: string, home: string | null): string | null {
  let dir = path.resolve(start);
  const homeDir = home === null || home === '' ? null : path.resolve(home);
  for (;;) {
    if (dir !== homeDir && (isFolder(path.join(dir, PROJECT_ROOT_FOLDER)) || fs.existsSync(path.join(dir, '.git')))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function isFolder(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
