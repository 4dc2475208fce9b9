import fs from 'node:fs';
import path from 'node:path';
import type { EntryScan } from './CapabilityKind.js';

interface EntryState {
  scan: EntryScan;
  readonly isDirectory: boolean;
  dirty: boolean;
  watcher: fs.FSWatcher | null;
}

interface FolderState {
  /** Null when the folder does not exist. */
  entries: Map<string, EntryState> | null;
  listingDirty: boolean;
  watcher: fs.FSWatcher | null;
}

/** A directory entry as the scanner needs it. */
export interface FolderEntry {
  readonly name: string;
  readonly isDirectory: boolean;
}

/**
 * Keeps what a long-running process read from each kind folder and drops exactly what changed on
 * disk, told by file watchers: the folder itself (entries added, removed, single-file documents
 * edited) and each entry folder (its `SKILL.md` / `TASK.md` edited). A session open in a quiet
 * workspace reads nothing. When a watcher cannot be set up the folder is simply read every time.
 *
 * One-shot commands do not use it: they read the disk, so a hand edit is always seen.
 */
export class FolderScanCache {
  private readonly folders = new Map<string, FolderState>();
  private readonly rootWatchers = new Map<string, fs.FSWatcher | null>();

  /**
   * Returns the entries of `folder` with their scans, reading only what is new or changed.
   *
   * @param list lists the folder (null when it is missing)
   * @param read reads one entry
   */
  scan(
    rootDir: string,
    folder: string,
    list: () => FolderEntry[] | null,
    read: (entry: FolderEntry) => EntryScan,
  ): EntryScan[] {
    if (!this.watchRoot(rootDir)) {
      // The root itself is missing or cannot be watched: nothing can tell us when it changes.
      return (list() ?? []).map(read);
    }
    let state = this.folders.get(folder);
    if (state === undefined) {
      state = { entries: null, listingDirty: true, watcher: null };
      this.folders.set(folder, state);
    }
    if (state.listingDirty) this.relist(folder, state, list, read);
    const scans: EntryScan[] = [];
    if (state.entries === null) return scans;
    for (const [name, entry] of state.entries) {
      if (entry.dirty) {
        entry.dirty = false;
        entry.scan = read({ name, isDirectory: entry.isDirectory });
      }
      scans.push(entry.scan);
    }
    return scans;
  }

  /** Stops every watcher. */
  close(): void {
    for (const state of this.folders.values()) closeFolder(state);
    this.folders.clear();
    for (const watcher of this.rootWatchers.values()) watcher?.close();
    this.rootWatchers.clear();
  }

  private relist(
    folder: string,
    state: FolderState,
    list: () => FolderEntry[] | null,
    read: (entry: FolderEntry) => EntryScan,
  ): void {
    state.listingDirty = false;
    const listed = list();
    if (listed === null) {
      closeFolder(state);
      state.entries = null;
      return;
    }
    if (state.watcher === null) {
      state.watcher = this.watch(folder, (name) => {
        state.listingDirty = true;
        const entry = name === null ? undefined : state.entries?.get(name);
        if (entry !== undefined) entry.dirty = true;
      });
      if (state.watcher === null) state.listingDirty = true; // cannot watch: read every time
    }
    const previous = state.entries ?? new Map<string, EntryState>();
    const next = new Map<string, EntryState>();
    for (const dirent of listed) {
      const known = previous.get(dirent.name);
      if (known !== undefined && !known.dirty && known.isDirectory === dirent.isDirectory) {
        next.set(dirent.name, known);
        previous.delete(dirent.name);
        continue;
      }
      known?.watcher?.close();
      previous.delete(dirent.name);
      const entry: EntryState = { scan: read(dirent), isDirectory: dirent.isDirectory, dirty: false, watcher: null };
      if (dirent.isDirectory) {
        entry.watcher = this.watch(path.join(folder, dirent.name), () => {
          entry.dirty = true;
        });
        if (entry.watcher === null) state.listingDirty = true;
      }
      next.set(dirent.name, entry);
    }
    for (const gone of previous.values()) gone.watcher?.close();
    state.entries = next;
  }

  /** Watches a root for kind folders appearing or disappearing; false when it cannot be watched. */
  private watchRoot(rootDir: string): boolean {
    const known = this.rootWatchers.get(rootDir);
    if (known !== undefined && known !== null) return true;
    const watcher = this.watch(rootDir, (name) => {
      for (const [folder, state] of this.folders) {
        if (path.dirname(folder) === rootDir && (name === null || path.basename(folder) === name)) {
          state.listingDirty = true;
        }
      }
    });
    this.rootWatchers.set(rootDir, watcher);
    return watcher !== null;
  }

  private watch(dir: string, onChange: (name: string | null) => void): fs.FSWatcher | null {
    try {
      const watcher = fs.watch(dir, { persistent: false }, (_event, name) => onChange(name ?? null));
      watcher.on('error', () => {
        watcher.close();
        onChange(null);
      });
      return watcher;
    } catch {
      return null;
    }
  }
}

function closeFolder(state: FolderState): void {
  state.watcher?.close();
  state.watcher = null;
  if (state.entries !== null) for (const entry of state.entries.values()) entry.watcher?.close();
}
