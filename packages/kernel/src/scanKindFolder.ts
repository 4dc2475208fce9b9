import path from 'node:path';
import type { CapabilityKind, CapabilityRecord, EntryScan } from './CapabilityKind.js';
import { childPath } from '@loadout/files';
import type { Diagnostic } from './Diagnostic.js';
import type { DocumentReads } from './DocumentReads.js';
import { DocumentRefusedError, type DocumentUnreadableError, isInside, unreadable } from '@loadout/files';
import { type EntryType, type FolderEntry, folderEntryInside, listFolderInside } from '@loadout/files';
import type { Level, Root } from './Root.js';
import type { InlineDocument, RootLayoutSource } from './RootLayout.js';
import type { FolderKind, ScanSource } from './ScanSource.js';

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
 * Lists a root's kind folder (or, for a root with a layout, another folder inside it) for a scan ({@link listFolderInside}). A kind folder that may not be
 * read (a link out of its root, a folder the process cannot open) is listed as one refused entry,
 * so the session reports it at every open. Null when the folder is missing.
 */
export function listKindFolder(
  kind: CapabilityKind,
  root: Root,
  folderType?: EntryType,
  folder = path.join(root.dir, kind.folder),
): readonly FolderEntry[] | null {
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
 * `at` names the folder the entry was listed in (the kind folder by default, or another folder
 * of the root: a layout's; as `path.join` or `path.resolve` made it), or the inline document the
 * entry is, and where whole documents are kept when the open asked for them. A scan passes one
 * `at` for every entry of a folder.
 */
export function readKindFolderEntry(
  kind: CapabilityKind,
  root: Root,
  entry: FolderEntry,
  at: { readonly folder?: string; readonly document?: InlineDocument; readonly documents?: DocumentReads } = {},
): StampedScan {
  const folder = at.folder ?? path.join(root.dir, kind.folder);
  const entryPath = at.document?.path ?? childPath(folder, entry.name);
  if (entry.refusal !== undefined) return refused(entry.refusal, entryPath);
  let scan: EntryScan;
  try {
    const read = { root, folder, name: entry.name, path: entryPath, isDirectory: entry.isDirectory, documents: at.documents };
    scan = kind.readEntry(at.document === undefined ? read : { ...read, content: at.document.content });
  } catch (error) {
    if (error instanceof DocumentRefusedError) return refused(error, entryPath);
    return refused(unreadable('DOCUMENT_UNREADABLE', entryPath, error), entryPath);
  }
  // The drafts were made by this read and nobody else holds them: completing them in place saves
  // a copy of every record of a scan.
  for (const draft of scan.records) {
    const record = draft as typeof draft & { kind: string; level: Level; plugin: string | null };
    record.kind = kind.kind;
    record.level = root.level;
    record.plugin = root.plugin;
  }
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
  const at = { folder };
  const entries = listing.entries.map((entry): KindEntryScan => {
    const scan = readKindFolderEntry(kind, root, entry, at);
    const { name, isDirectory } = entry;
    return {
      name,
      path: childPath(folder, name),
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
  const sources = layoutSourcesOf(kind, root);
  if (sources !== null) return findInRootLayout(kind, root, sources, name);
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
  return {
    records: [],
    diagnostics: [{ code: refusal.code, severity: 'warning', path: entryPath, message: refusal.message }],
    refused: true,
    refusal,
  };
}

/**
 * The layout sources a root gives `kind`, or null when the kind is read from its usual folder.
 * An empty list means the root holds nothing of that kind.
 */
export function layoutSourcesOf(kind: CapabilityKind, root: Root): readonly RootLayoutSource[] | null {
  const layout = root.layout;
  if (layout === undefined) return null;
  return layout.kinds[kind.folder] ?? (layout.onlyListed ? [] : null);
}

/**
 * Reads every source a root's layout gives one kind, in order: a folder as a kind folder is read
 * (through the loader's scan source when it is directly under the root, where a source that keeps reads sees it appear), a
 * single entry as one entry of its parent folder, an inline document through the kind with its
 * content. A source whose path leaves the root is reported and never read.
 */
export function scanRootLayout(
  kind: CapabilityKind,
  root: Root,
  sources: readonly RootLayoutSource[],
  scanSource: ScanSource,
): StampedScan[] {
  const scans: StampedScan[] = [];
  for (const source of sources) {
    if ('document' in source) {
      scans.push(readInlineDocument(kind, root, source.document));
      continue;
    }
    const relative = 'folder' in source ? source.folder : source.entry;
    const target = path.resolve(root.dir, relative);
    if (!isInside(root.dir, target)) {
      scans.push(
        refused(
          new DocumentRefusedError('PATH_OUTSIDE_ROOT', `${relative}: a layout path must stay inside its plugin's root; it is not read`),
          target,
        ),
      );
      continue;
    }
    if ('entry' in source) {
      const entry = layoutEntry(root, target);
      if (entry !== null) scans.push(readKindFolderEntry(kind, root, entry, { folder: path.dirname(target) }));
      continue;
    }
    const list = (): readonly FolderEntry[] | null => listKindFolder(kind, root, undefined, target);
    const at = { folder: target };
    const read = (entry: FolderEntry): StampedScan => readKindFolderEntry(kind, root, entry, at);
    const found =
      path.dirname(target) === root.dir
        ? scanSource.scanFolder(root.dir, path.basename(target), list, read, folderKindOf(kind))
        : (list() ?? []).map(read);
    for (const scan of found) scans.push(scan);
  }
  return scans;
}

/** The scan of the entry a root's layout gives `kind` under `name` (a direct lookup, e.g. a task by folder name). */
function findInRootLayout(kind: CapabilityKind, root: Root, sources: readonly RootLayoutSource[], name: string): StampedScan | null {
  for (const source of sources) {
    if ('document' in source) {
      if (source.document.name === name) return readInlineDocument(kind, root, source.document);
      continue;
    }
    const target = path.resolve(root.dir, 'folder' in source ? path.join(source.folder, name) : source.entry);
    if (!isInside(root.dir, target) || path.basename(target) !== name) continue;
    const entry = layoutEntry(root, target);
    if (entry !== null) return readKindFolderEntry(kind, root, entry, { folder: path.dirname(target) });
  }
  return null;
}

function readInlineDocument(kind: CapabilityKind, root: Root, document: InlineDocument): StampedScan {
  return readKindFolderEntry(kind, root, { name: document.name, isDirectory: false }, { folder: path.dirname(document.path), document });
}

/** The entry at `target` as a listing of its folder would give it; a refusal when it links out of the root. */
function layoutEntry(root: Root, target: string): FolderEntry | null {
  try {
    return folderEntryInside(root.dir, path.dirname(target), path.basename(target));
  } catch (error) {
    if (!(error instanceof DocumentRefusedError)) throw error;
    return { name: path.basename(target), isDirectory: false, refusal: error };
  }
}

/** What a scan source is told of a kind's folder: its kind, and the document that tells an entry's edits. */
export function folderKindOf(kind: CapabilityKind): FolderKind {
  if (kind.document.file === undefined) return { kind: kind.kind };
  return { kind: kind.kind, documentFile: kind.document.file, documentAlone: kind.document.recordFromFileAlone === true };
}
