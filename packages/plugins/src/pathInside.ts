import path from 'node:path';
import { type FileReader, isInside, nodeFileReader } from '@loadout/kernel';

/** What a package path is once links are followed, never past its plugin's root. */
export type PathInside =
  | { readonly type: 'missing' }
  /** The path, or a link in it, leads outside the root: it is never read. */
  | { readonly type: 'outside' }
  | { readonly type: 'file' | 'folder' | 'other'; readonly real: string };

/**
 * The type of `relative` (a `/`-separated path under `root`) after following links, as long as
 * both the path and its real target stay inside the root's real path. Looks through `files`.
 */
export function pathInside(root: string, relative: string, files: FileReader = nodeFileReader): PathInside {
  const target = path.resolve(root, relative);
  if (!isInside(root, target)) return { type: 'outside' };
  const names = rootNames(root, files);
  if (names !== null) {
    const first = path.posix.normalize(relative).split('/')[0] ?? '';
    if (first !== '.' && first !== '' && !names.has(first)) return { type: 'missing' };
  }
  // Most paths asked about do not exist (a manifest, a parts folder): one lstat settles those.
  try {
    files.lstat(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { type: 'missing' };
    throw error;
  }
  let real: string;
  let realRoot: string;
  try {
    real = files.realpathNative(target);
    realRoot = files.realpathNative(root);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return { type: 'missing' };
    throw error;
  }
  if (!isInside(realRoot, real)) return { type: 'outside' };
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

/** A reader that knows one root's top-level names: made by {@link withRootListing} for the work it runs, and gone with it. */
interface ListingReader extends FileReader {
  readonly rootListing: { readonly root: string; readonly names: ReadonlySet<string> };
}

/** The root's top-level names when `files` is the reader {@link withRootListing} handed, else null. */
export function rootNames(root: string, files: FileReader): ReadonlySet<string> | null {
  const listing = (files as Partial<ListingReader>).rootListing;
  return listing !== undefined && listing.root === root ? listing.names : null;
}

/**
 * Runs `work` with a reader that knows the root's top-level names, read once through `files`, so
 * every {@link pathInside} through it asking about something that is not there (most manifests
 * and parts folders a reader looks for) costs nothing. The names are the root's as `work` starts;
 * they live on the reader handed to `work`, never beyond it.
 */
export function withRootListing<T>(root: string, files: FileReader, work: (files: FileReader) => T): T {
  let names: string[];
  try {
    names = files.readdir(root);
  } catch {
    names = [];
  }
  const listed: ListingReader = Object.assign(Object.create(files) as FileReader, { rootListing: { root, names: new Set(names) } });
  return work(listed);
}
