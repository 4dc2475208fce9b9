import fs from 'node:fs';
import path from 'node:path';
import type { FolderEntry } from './listFolderInside.js';
import { DEFAULT_ROOT_RETENTION, RootRetention, type RootRetentionLimits } from './RootRetention.js';

interface EntryState<T> {
  value: T;
  readonly isDirectory: boolean;
  readonly refusal: FolderEntry['refusal'];
  dirty: boolean;
  watcher: fs.FSWatcher | null;
}

interface FolderState<T> {
  /** Null when the folder does not exist. */
  entries: Map<string, EntryState<T>> | null;
  listingDirty: boolean;
  watcher: fs.FSWatcher | null;
}

interface RootWatch {
  readonly watcher: fs.FSWatcher;
  /** True when the root is missing and its parent is watched for it to appear. */
  readonly missing: boolean;
}

/** How a cache bounds what it keeps (see {@link RootRetention}); `now` is for tests. */
export interface FolderScanCacheOptions extends Partial<RootRetentionLimits> {
  readonly now?: () => number;
}

/**
 * Keeps what a long-running process read from each kind folder and drops exactly what changed on
 * disk, told by file watchers: each root (kind folders appearing or going), each kind folder
 * (entries added, removed, single-file documents edited) and each entry folder (its `SKILL.md` /
 * `TASK.md` edited). A session open in a quiet workspace reads nothing. A folder that cannot be
 * watched is read every time.
 *
 * What is kept is bounded by root: the roots of the session being opened, a few more recently
 * used ones, and none idle for long ({@link RootRetention}); a released root is read from the disk
 * again when a session next needs it. Every `?project=` is a root, so without this bound each one
 * asked for would hold its watches for the life of the server.
 *
 * `generation` changes whenever anything might have changed, so a caller can keep results derived
 * from a whole scan while it stays the same. One-shot commands do not use this cache: they read the
 * disk, so a hand edit is always seen.
 */
export class FolderScanCache<T = unknown> {
  private readonly folders = new Map<string, FolderState<T>>();
  private readonly roots = new Map<string, RootWatch>();
  private readonly retention: RootRetention;
  private readonly idleMs: number;
  private sweeper: NodeJS.Timeout | null = null;
  private changes = 0;

  constructor(options: FolderScanCacheOptions = {}) {
    const limits = { ...DEFAULT_ROOT_RETENTION, ...options };
    this.retention = new RootRetention(limits, options.now);
    this.idleMs = limits.idleMs;
  }

  /** Changes whenever a watcher fires or a folder had to be read without a watcher. */
  get generation(): number {
    return this.changes;
  }

  /** The file watches this cache holds open. */
  get watchCount(): number {
    let count = this.roots.size;
    for (const state of this.folders.values()) {
      if (state.watcher !== null) count += 1;
      for (const entry of state.entries?.values() ?? []) if (entry.watcher !== null) count += 1;
    }
    return count;
  }

  /** The roots this cache keeps something for. */
  get rootCount(): number {
    return this.retention.size;
  }

  /**
   * Releases the roots {@link RootRetention} says to: idle ones, and the least recently used
   * beyond the spare ones. Never one of `inUse` (the roots of the session being opened).
   */
  trim(inUse: ReadonlySet<string>): void {
    for (const root of this.retention.expired(inUse)) this.release(root);
  }

  /** Releases every root idle for too long; runs on a timer while anything is kept. */
  sweep(): void {
    this.trim(new Set());
    if (this.retention.size === 0) this.stopSweeping();
  }

  /**
   * The values of every entry of `folder`, reading only what is new or changed.
   *
   * @param list lists the folder; null when it is missing
   * @param read reads one entry
   */
  scan(rootDir: string, folder: string, list: () => readonly FolderEntry[] | null, read: (entry: FolderEntry) => T): T[] {
    this.retention.touch(rootDir);
    this.startSweeping();
    const root = this.watchRoot(rootDir);
    if (root === null) {
      this.changes += 1;
      return (list() ?? []).map(read);
    }
    let state = this.folders.get(folder);
    if (state === undefined) {
      state = { entries: null, listingDirty: true, watcher: null };
      this.folders.set(folder, state);
    }
    if (root.missing) {
      closeFolder(state);
      state.entries = null;
      state.listingDirty = true;
      return [];
    }
    if (state.listingDirty) this.relist(folder, state, list, read);
    const values: T[] = [];
    if (state.entries === null) return values;
    for (const [name, entry] of state.entries) {
      if (entry.isDirectory && entry.refusal === undefined && entry.watcher === null) {
        // An entry folder nobody watches (its watcher failed or was never made) is read every time.
        entry.watcher = this.watchEntry(folder, name, entry);
        if (entry.watcher === null) {
          entry.dirty = true;
          this.changes += 1;
        }
      }
      if (entry.dirty) {
        entry.dirty = false;
        entry.value = read({ name, isDirectory: entry.isDirectory, ...(entry.refusal === undefined ? {} : { refusal: entry.refusal }) });
      }
      values.push(entry.value);
    }
    return values;
  }

  /** Stops every watcher. */
  close(): void {
    this.stopSweeping();
    for (const state of this.folders.values()) closeFolder(state);
    this.folders.clear();
    for (const root of this.roots.values()) root.watcher.close();
    this.roots.clear();
    this.retention.clear();
  }

  /** Forgets everything kept for `rootDir` and closes its watches; the next scan reads it again. */
  private release(rootDir: string): void {
    this.retention.forget(rootDir);
    this.roots.get(rootDir)?.watcher.close();
    this.roots.delete(rootDir);
    for (const [folder, state] of this.folders) {
      if (path.dirname(folder) !== rootDir) continue;
      closeFolder(state);
      this.folders.delete(folder);
    }
    this.changes += 1;
  }

  private startSweeping(): void {
    if (this.sweeper !== null) return;
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.min(this.idleMs / 2, 60_000)));
    this.sweeper.unref();
  }

  private stopSweeping(): void {
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  private relist(folder: string, state: FolderState<T>, list: () => readonly FolderEntry[] | null, read: (entry: FolderEntry) => T): void {
    state.listingDirty = false;
    const listed = list();
    if (listed === null) {
      closeFolder(state);
      state.entries = null;
      return;
    }
    if (state.watcher === null) {
      state.watcher = this.watch(
        folder,
        (name) => {
          state.listingDirty = true;
          const entry = name === null ? undefined : state.entries?.get(name);
          if (entry !== undefined) entry.dirty = true;
        },
        () => {
          state.watcher = null;
          state.listingDirty = true;
        },
      );
      if (state.watcher === null) this.unwatchable(state);
    }
    const previous = state.entries ?? new Map<string, EntryState<T>>();
    const next = new Map<string, EntryState<T>>();
    for (const dirent of listed) {
      const known = previous.get(dirent.name);
      previous.delete(dirent.name);
      const reusable =
        known !== undefined &&
        !known.dirty &&
        known.isDirectory === dirent.isDirectory &&
        known.refusal === undefined &&
        dirent.refusal === undefined &&
        (!known.isDirectory || known.watcher !== null);
      if (reusable) {
        next.set(dirent.name, known as EntryState<T>);
        continue;
      }
      known?.watcher?.close();
      const entry: EntryState<T> = { value: read(dirent), isDirectory: dirent.isDirectory, refusal: dirent.refusal, dirty: false, watcher: null };
      if (dirent.isDirectory && dirent.refusal === undefined) {
        entry.watcher = this.watchEntry(folder, dirent.name, entry);
        if (entry.watcher === null) this.changes += 1;
      }
      next.set(dirent.name, entry);
    }
    for (const gone of previous.values()) gone.watcher?.close();
    state.entries = next;
  }

  /** Watches one entry folder; when the watcher fails later it is dropped and made again at the next scan. */
  private watchEntry(folder: string, name: string, entry: EntryState<T>): fs.FSWatcher | null {
    const watcher = this.watch(
      path.join(folder, name),
      () => {
        entry.dirty = true;
      },
      () => {
        entry.watcher = null;
        entry.dirty = true;
      },
    );
    return watcher;
  }

  /** A folder that cannot be watched is listed again at every scan. */
  private unwatchable(state: FolderState<T>): void {
    state.listingDirty = true;
    for (const entry of state.entries?.values() ?? []) entry.dirty = true;
    this.changes += 1;
  }

  /**
   * Watches a root for kind folders appearing or going. A missing root is waited for by watching
   * its parent. Null when neither can be watched.
   */
  private watchRoot(rootDir: string): RootWatch | null {
    const known = this.roots.get(rootDir);
    if (known !== undefined) return known;
    const onRootChange = (name: string | null): void => {
      for (const [folder, state] of this.folders) {
        if (path.dirname(folder) === rootDir && (name === null || path.basename(folder) === name)) state.listingDirty = true;
      }
    };
    let watch: RootWatch | null = null;
    if (isDirectory(rootDir)) {
      const watcher = this.watch(rootDir, onRootChange, () => this.forgetRoot(rootDir));
      if (watcher !== null) watch = { watcher, missing: false };
    } else {
      const watcher = this.watch(
        path.dirname(rootDir),
        (name) => {
          if (name === null || name === path.basename(rootDir)) this.forgetRoot(rootDir);
        },
        () => this.forgetRoot(rootDir),
      );
      if (watcher !== null) watch = { watcher, missing: true };
    }
    if (watch !== null) this.roots.set(rootDir, watch);
    return watch;
  }

  private forgetRoot(rootDir: string): void {
    this.roots.get(rootDir)?.watcher.close();
    this.roots.delete(rootDir);
    for (const [folder, state] of this.folders) {
      if (path.dirname(folder) === rootDir) state.listingDirty = true;
    }
  }

  private watch(dir: string, onChange: (name: string | null) => void, onError?: () => void): fs.FSWatcher | null {
    try {
      const watcher = fs.watch(dir, { persistent: false }, (_event, name) => {
        this.changes += 1;
        onChange(name ?? null);
      });
      watcher.on('error', () => {
        watcher.close();
        this.changes += 1;
        onChange(null);
        onError?.();
      });
      return watcher;
    } catch {
      return null;
    }
  }
}

function closeFolder<T>(state: FolderState<T>): void {
  state.watcher?.close();
  state.watcher = null;
  if (state.entries !== null) for (const entry of state.entries.values()) entry.watcher?.close();
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
