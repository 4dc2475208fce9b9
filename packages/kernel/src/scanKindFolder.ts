import path from 'node:path';
import type { CapabilityKind, CapabilityRecord, EntryScan } from './CapabilityKind.js';
import type { Diagnostic } from './Diagnostic.js';
import { DocumentRefusedError, type DocumentUnreadableError, unreadable } from './DocumentReader.js';
import { type EntryType, type FolderEntry, folderEntryInside, listFolderInside } from './listFolderInside.js';
import type { Root } from './Root.js';

/** An entry's scan with the root's level and plugin put on every record. */
export interface StampedScan {
  readonly records: readonly CapabilityRecord[];
  readonly diagnostics: readonly Diagnostic[];
  /** True when the entry could not be read at all (a link out of its root, a refused document …). */
  readonly refused?: boolean;
  /**
   * Why a refused entry was refused: a {@link DocumentRefusedError} (the entry breaks a rule) or a
   * {@link DocumentUnreadableError} (the file system would not read it; its `cause` says why).
   */
  readonly refusal?: DocumentRefusedError | DocumentUnreadableError;
}

/** One entry of a kind folder with what its kind read from it. */
export interface KindEntryScan extends StampedScan {
  readonly name: string;
  /** Absolute path of the entry (the folder of a folder document). */
  readonly path: string;
  readonly isDirectory: boolean;
  readonly refused: boolean;
}

/** One root's kind folder as it is on disk right now. */
export interface KindFolderScan {
  /** Absolute path of the kind folder (it may not exist). */
  readonly folder: string;
  /** Every name in the folder, hidden ones and non-documents included: names a new entry may not take. */
  readonly names: readonly string[];
  readonly entries: readonly KindEntryScan[];
  /** Every record of every entry, in name order. */
  readonly records: readonly CapabilityRecord[];
}

/**
 * Lists a root's kind folder for a scan ({@link listFolderInside}). A kind folder that may not be
 * read (a link out of its root, a folder the process cannot open) is listed as one refused entry,
 * so the session reports it at every open. Null when the folder is missing.
 */
export function listKindFolder(kind: CapabilityKind, root: Root, folderType?: EntryType): readonly FolderEntry[] | null {
  const folder = path.join(root.dir, kind.folder);
  try {
    return listFolderInside(root.dir, folder, folderType)?.entries ?? null;
  } catch (error) {
    if (error instanceof DocumentRefusedError) return [{ name: '', isDirectory: false, refusal: error }];
    return [{ name: '', isDirectory: false, refusal: unreadable('FOLDER_UNREADABLE', folder, error) }];
  }
}

/**
 * Reads one listed entry with its kind's reader and stamps the root's level and plugin on every
 * record. A refused entry, or a reader that throws, becomes a diagnostic for that entry alone.
 */
export function readKindFolderEntry(kind: CapabilityKind, root: Root, entry: FolderEntry): StampedScan {
  const folder = path.join(root.dir, kind.folder);
  const entryPath = path.join(folder, entry.name);
  if (entry.refusal !== undefined) return refused(entry.refusal, entryPath);
  let scan: EntryScan;
  try {
    scan = kind.readEntry({ root, folder, name: entry.name, path: entryPath, isDirectory: entry.isDirectory });
  } catch (error) {
    if (error instanceof DocumentRefusedError) return refused(error, entryPath);
    return refused(unreadable('DOCUMENT_UNREADABLE', entryPath, error), entryPath);
  }
  // The drafts were made by this read and nobody else holds them: completing them in place saves
  // a copy of every record of a scan.
  for (const draft of scan.records) Object.assign(draft, { kind: kind.kind, level: root.level, plugin: root.plugin });
  return scan as StampedScan;
}

/**
 * Reads one root's kind folder from the disk, never from the watch cache: for a caller that must
 * see what it wrote a moment ago (a mover planning and checking a landing). Hidden names are
 * skipped as every scan skips them, but are all in `names`. A kind folder that may not be read is
 * an error here (a `DocumentRefusedError`, or the file system's), not a listing.
 */
export function scanKindFolder(kind: CapabilityKind, root: Root): KindFolderScan {
  const folder = path.join(root.dir, kind.folder);
  const listing = listFolderInside(root.dir, folder);
  if (listing === null) return { folder, names: [], entries: [], records: [] };
  const entries = listing.entries.map((entry): KindEntryScan => {
    const scan = readKindFolderEntry(kind, root, entry);
    const { name, isDirectory } = entry;
    return {
      name,
      path: path.join(folder, name),
      isDirectory,
      records: scan.records,
      diagnostics: scan.diagnostics,
      refused: scan.refused === true,
      ...(scan.refusal === undefined ? {} : { refusal: scan.refusal }),
    };
  });
  return { folder, names: listing.names, entries, records: entries.flatMap((entry) => entry.records) };
}

/**
 * Reads one named entry of a root's kind folder exactly as a scan would: the same link checks,
 * the same refusals, the same records. Null when the root holds no such entry. For a direct
 * lookup (a task by its folder name) that must agree with what a session lists.
 */
export function readKindEntry(kind: CapabilityKind, root: Root, name: string): StampedScan | null {
  let entry: FolderEntry | null;
  try {
    entry = folderEntryInside(root.dir, path.join(root.dir, kind.folder), name);
  } catch (error) {
    if (!(error instanceof DocumentRefusedError)) throw error;
    entry = { name, isDirectory: false, refusal: error };
  }
  return entry === null ? null : readKindFolderEntry(kind, root, entry);
}

function refused(refusal: DocumentRefusedError | DocumentUnreadableError, entryPath: string): StampedScan {
  return { records: [], diagnostics: [{ code: refusal.code, severity: 'warning', path: entryPath, message: refusal.message }], refused: true, refusal };
}
