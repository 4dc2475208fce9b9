import fs from 'node:fs';
import path from 'node:path';
import {
  type CapabilityKind,
  type CapabilityRecord,
  type Diagnostic,
  DocumentRefusedError,
  realpathInside,
  type Root,
} from '@loadout/kernel';

/** What the kind's reader made of one entry of a kind folder. */
export interface ScannedEntry {
  readonly name: string;
  /** Absolute path of the entry (the folder of a folder skill). */
  readonly path: string;
  readonly records: readonly CapabilityRecord[];
  readonly diagnostics: readonly Diagnostic[];
  /** The reader refused the entry (oversized, malformed, a link out of the root …). */
  readonly refused: boolean;
}

/** One root's kind folder as the scanner sees it right now. */
export interface KindFolderScan {
  /** Absolute path of the kind folder (it may not exist). */
  readonly folder: string;
  /** Every name in the folder, hidden ones and non-documents included: a landing may take none. */
  readonly names: readonly string[];
  readonly entries: readonly ScannedEntry[];
  /** Every record of every entry, in the scanner's order. */
  readonly records: readonly CapabilityRecord[];
}

/**
 * Reads one root's kind folder with the kind's own reader, the way the session loader does
 * (hidden names skipped, entries in name order, links followed only inside the root), but always
 * from the disk: a mover must see the file it wrote a moment ago, which a watch cache may not yet.
 */
export function scanKindFolder(kind: CapabilityKind, root: Root): KindFolderScan {
  const folder = path.join(root.dir, kind.folder);
  let dirents: fs.Dirent[];
  try {
    // A kind folder that is a link is read only when it stays inside the root (else this throws).
    if (fs.lstatSync(folder).isSymbolicLink() && realpathInside(root.dir, folder) === null) {
      return { folder, names: [], entries: [], records: [] };
    }
    dirents = fs.readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { folder, names: [], entries: [], records: [] };
    throw error;
  }
  dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const entries: ScannedEntry[] = [];
  for (const dirent of dirents) {
    if (dirent.name.startsWith('.')) continue;
    entries.push(scanEntry(kind, root, folder, dirent));
  }
  return { folder, names: dirents.map((dirent) => dirent.name), entries, records: entries.flatMap((entry) => entry.records) };
}

function scanEntry(kind: CapabilityKind, root: Root, folder: string, dirent: fs.Dirent): ScannedEntry {
  const entryPath = path.join(folder, dirent.name);
  const refused = (code: string, message: string): ScannedEntry => ({
    name: dirent.name,
    path: entryPath,
    records: [],
    diagnostics: [{ code, severity: 'warning', path: entryPath, message }],
    refused: true,
  });
  try {
    let isDirectory = dirent.isDirectory();
    if (dirent.isSymbolicLink()) {
      const real = realpathInside(root.dir, entryPath);
      if (real === null) return { name: dirent.name, path: entryPath, records: [], diagnostics: [], refused: false };
      isDirectory = fs.statSync(real).isDirectory();
    }
    const scan = kind.readEntry({ root, folder, name: dirent.name, path: entryPath, isDirectory });
    return {
      name: dirent.name,
      path: entryPath,
      records: scan.records.map((draft) => ({ ...draft, kind: kind.kind, level: root.level, plugin: root.plugin }) as CapabilityRecord),
      diagnostics: scan.diagnostics,
      refused: false,
    };
  } catch (error) {
    if (error instanceof DocumentRefusedError) return refused(error.code, error.message);
    return refused('DOCUMENT_UNREADABLE', `${entryPath}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
