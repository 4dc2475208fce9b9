import fs from 'node:fs';
import path from 'node:path';
import { DocumentRefusedError, DocumentUnreadableError, realpathInside, unreadable } from './pathsInside.js';
import { trackedFs } from './ReadLog.js';

/** A name in a folder, as Loadout may read it. */
export interface FolderEntry {
  readonly name: string;
  /** Whether it is a folder, or a link to one. */
  readonly isDirectory: boolean;
  /** For a link: the real path it leads to, inside the root. */
  readonly realPath?: string;
  /**
   * Set when the entry may not be read (a link out of its root or in a loop, an entry the file
   * system refuses); kept so it is reported every time. A {@link DocumentRefusedError} or a
   * {@link DocumentUnreadableError}.
   */
  readonly refusal?: DocumentRefusedError | DocumentUnreadableError;
}

/** A folder as {@link listFolderInside} lists it. */
export interface FolderListing {
  /** Every name in the folder, hidden ones and links to nothing included, in name order: names a new entry may not take. */
  readonly names: readonly string[];
  /** The entries Loadout reads, in name order. */
  readonly entries: readonly FolderEntry[];
}

/** The type of a name, as both `fs.Dirent` and `fs.Stats` tell it. */
export type EntryType = Pick<fs.Dirent, 'isDirectory' | 'isSymbolicLink'>;

/**
 * The one way Loadout lists a folder under a root (a kind folder, a runtime's skill folder):
 * hidden names (`.…`) are skipped, entries come in name order, and a link is followed only while
 * its real target stays inside the root. A link that leads out is listed with its refusal, so it is
 * reported wherever it is listed and never read; a link to nothing is left out.
 *
 * Null when the folder does not exist or is not a folder. Throws a `DocumentRefusedError` when the
 * folder itself is a link out of the root, and the file system's error when it cannot be read.
 *
 * @param folderType the folder's own type when the caller listed its parent already (spares a
 *   system call); read from the disk when absent
 */
export function listFolderInside(rootDir: string, folder: string, folderType?: EntryType): FolderListing | null {
  if (!openFolder(rootDir, folder, folderType)) return null;
  let dirents: fs.Dirent[];
  try {
    dirents = trackedFs.readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
  dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const names: string[] = [];
  const entries: FolderEntry[] = [];
  for (const dirent of dirents) {
    names.push(dirent.name);
    if (dirent.name.startsWith('.')) continue;
    const entry = entryInside(rootDir, folder, dirent.name, dirent);
    if (entry !== null) entries.push(entry);
  }
  return { names, entries };
}

/**
 * One name of a folder under a root, exactly as {@link listFolderInside} would list it (hidden
 * names are not special here: the caller named it). Null when there is no such entry, or it is a
 * link to nothing. Throws a `DocumentRefusedError` when the folder is a link out of the root.
 */
export function folderEntryInside(rootDir: string, folder: string, name: string): FolderEntry | null {
  if (!openFolder(rootDir, folder)) return null;
  let type: fs.Stats | undefined;
  try {
    type = trackedFs.lstatSync(path.join(folder, name), { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw error;
  }
  return type === undefined ? null : entryInside(rootDir, folder, name, type);
}

/** Whether the folder is there to be read; a link out of the root is refused. */
function openFolder(rootDir: string, folder: string, known?: EntryType): boolean {
  const type = known ?? trackedFs.lstatSync(folder, { throwIfNoEntry: false });
  if (type === undefined) return false;
  return !type.isSymbolicLink() || realpathInside(rootDir, folder) !== null;
}

/**
 * One entry as a listing gives it. A link is followed to its real target inside the root; a link
 * that leads out or loops, and a link the file system will not resolve, are listed with their
 * refusal so one bad entry never hides its siblings.
 */
function entryInside(rootDir: string, folder: string, name: string, type: EntryType): FolderEntry | null {
  if (!type.isSymbolicLink()) return { name, isDirectory: type.isDirectory() };
  const entryPath = path.join(folder, name);
  try {
    const real = realpathInside(rootDir, entryPath);
    if (real === null) return null;
    return { name, isDirectory: trackedFs.statSync(real).isDirectory(), realPath: real };
  } catch (error) {
    if (error instanceof DocumentRefusedError) return { name, isDirectory: false, refusal: error };
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { name, isDirectory: false, refusal: unreadable('ENTRY_UNREADABLE', path.relative(rootDir, entryPath), error) };
  }
}
