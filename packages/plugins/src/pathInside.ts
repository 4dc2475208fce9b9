import path from 'node:path';
import { expandPlaceholders } from '@loadout/kernel';
import { type FileReader, isInside, nodeFileReader, resolveInside } from '@loadout/files';

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

/** Whether `target` (absolute) leaves `base`: by its path, or by a link on the way, followed as far as it exists. */
export function leavesFolder(base: string, target: string, files: FileReader = nodeFileReader): boolean {
  return !isInside(base, target) || !isInside(realPathSoFar(base, files), realPathSoFar(target, files));
}

/**
 * The placeholder of `folders` (`PLUGIN_ROOT` → the plugin's real root …) through which `word`
 * builds a path that leaves that folder (`${CLAUDE_PLUGIN_ROOT}/../../bin/sh`, or
 * `--config=${PLUGIN_DATA}/../x`), or null when every such path stays inside. The path is what
 * follows the placeholder to the end of the word, expanded.
 */
export function placeholderLeaving(
  word: string,
  folders: Readonly<Record<string, string>>,
  files: FileReader = nodeFileReader,
): string | null {
  for (const [name, folder] of Object.entries(folders)) {
    const placeholder = `\${${name}}`;
    for (let at = word.indexOf(placeholder); at !== -1; at = word.indexOf(placeholder, at + placeholder.length)) {
      const target = path.resolve(folder, expandPlaceholders(word.slice(at), folders));
      if (leavesFolder(folder, target, files)) return name;
    }
  }
  return null;
}

/** The real path of `target`'s nearest existing ancestor with the rest of `target` after it: links resolved as far as they exist. */
function realPathSoFar(target: string, files: FileReader): string {
  const rest: string[] = [];
  let current = target;
  for (;;) {
    try {
      return path.join(files.realpath(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return target;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}
