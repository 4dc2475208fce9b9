import path from 'node:path';
import { trackedFs } from '@loadout/files';

/**
 * The nearest folder at or above `start` that holds a `.git` entry (a folder, or a file for a
 * worktree or submodule): the marker both Codex and Claude Code use to stop walking up. Null when
 * `start` is not inside a repository.
 */
export function findRepositoryRoot(start: string): string | null {
  let dir = path.resolve(start);
  for (;;) {
    if (trackedFs.existsSync(path.join(dir, '.git'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * The folders from `project` up to its repository root, nearest first; only `project` itself
 * when it is not in a repository.
 */
export function foldersUpToRepositoryRoot(project: string): string[] {
  const root = findRepositoryRoot(project);
  const folders = [path.resolve(project)];
  if (root === null) return folders;
  let dir = folders[0] as string;
  while (dir !== root) {
    dir = path.dirname(dir);
    folders.push(dir);
  }
  return folders;
}

/**
 * The folders Claude Code reads project skills from when started in `project`: up to the
 * repository root; outside a repository it keeps going up, stopping below the home folder when the
 * project is inside it (the home folder's own `.claude` is the personal one), else at the root of
 * the file system (a project that is the home folder has none). Measured with Claude Code 2.1.197.
 */
export function foldersUpToRepositoryOrHome(project: string, home: string): string[] {
  if (findRepositoryRoot(project) !== null) return foldersUpToRepositoryRoot(project);
  const folders: string[] = [];
  let dir = path.resolve(project);
  const homeDir = path.resolve(home);
  for (;;) {
    if (dir === homeDir) break;
    folders.push(dir);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return folders;
}
