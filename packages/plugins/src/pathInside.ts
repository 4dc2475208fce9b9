import path from 'node:path';
import { type FileReader, isInside, nodeFileReader, resolveInside } from '@loadout/kernel';

/** What a package path is once links are followed, never past its plugin's root. */
export type PathInside =
  | { readonly type: 'missing' }
  /** The path, or a link in it, leads outside the root: it is never read. */
  | { readonly type: 'outside' }
  /** A link on the way leads back to itself: refused as not a regular file (or folder), never taken for missing. */
  | { readonly type: 'loop' }
  | { readonly type: 'file' | 'folder' | 'other'; readonly real: string };

/**
 * The type of `relative` (a `/`-separated path under `root`) after following links, as long as
 * both the path and its real target stay inside the root's real path. Looks through `files`.
 */
export function pathInside(root: string, relative: string, files: FileReader = nodeFileReader): PathInside {
  const target = path.resolve(root, relative);
  if (!isInside(root, target)) return { type: 'outside' };
  if (listing !== null && listing.root === root) {
    const first = path.posix.normalize(relative).split('/')[0] ?? '';
    if (first !== '.' && first !== '' && !listing.names.has(first)) return { type: 'missing' };
  }
  // Most paths asked about do not exist (a manifest, a parts folder): one lstat settles those.
  try {
    files.lstat(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { type: 'missing' };
    throw error;
  }
  // The kernel's one realpath-inside rule: a loop is `loop` here too, never `missing`.
  const found = resolveInside(root, target, files);
  if (found.kind !== 'inside') return { type: found.kind };
  const { real } = found;
  const stat = files.stat(real);
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

let listing: { readonly root: string; readonly names: ReadonlySet<string> } | null = null;

/** The root's top-level names when {@link withRootListing} read them, else null. */
export function rootNames(root: string): ReadonlySet<string> | null {
  return listing !== null && listing.root === root ? listing.names : null;
}

/**
 * Runs `work` with the root's top-level names read once, so every {@link pathInside} asking about
 * something that is not there (most manifests and parts folders a reader looks for) costs nothing.
 * Synchronous work only: the names are the root's (listed through `files`) as `work` starts.
 */
export function withRootListing<T>(root: string, files: FileReader, work: () => T): T {
  const previous = listing;
  let names: string[];
  try {
    names = files.readdir(root);
  } catch {
    names = [];
  }
  listing = { root, names: new Set(names) };
  try {
    return work();
  } finally {
    listing = previous;
  }
}
