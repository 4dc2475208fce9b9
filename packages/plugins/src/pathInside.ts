import fs from 'node:fs';
import path from 'node:path';
import { DocumentRefusedError, isInside, realpathInside } from '@loadout/kernel';

/** What a package path is once links are followed, never past its plugin's root. */
export type PathInside =
  | { readonly type: 'missing' }
  /** The path, or a link in it, leads outside the root: it is never read. */
  | { readonly type: 'outside' }
  | { readonly type: 'file' | 'folder' | 'other'; readonly real: string };

/**
 * The type of `relative` (a `/`-separated path under `root`) after following links, as long as
 * both the path and its real target stay inside the root's real path.
 */
export function pathInside(root: string, relative: string): PathInside {
  const target = path.resolve(root, relative);
  if (!isInside(root, target)) return { type: 'outside' };
  let real: string | null;
  try {
    real = realpathInside(root, target);
  } catch (error) {
    if (error instanceof DocumentRefusedError) return { type: 'outside' };
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR' || code === 'ELOOP') return { type: 'missing' };
    throw error;
  }
  if (real === null) return { type: 'missing' };
  const stat = fs.statSync(real);
  return { type: stat.isFile() ? 'file' : stat.isDirectory() ? 'folder' : 'other', real };
}

/** A plugin-relative path as a manifest gives it (`./x`, or `.` for the root) made `/`-relative; null when it is not one. */
export function manifestPath(value: string): string | null {
  if (value === '.' || value === './') return '.';
  if (!value.startsWith('./')) return null;
  const normal = path.posix.normalize(value.slice(2));
  if (normal === '..' || normal.startsWith('../') || path.posix.isAbsolute(normal)) return null;
  return normal.replace(/\/$/, '') || '.';
}
