import fs from 'node:fs';
import path from 'node:path';
import { type Diagnostic } from '@loadout/kernel';
import { changedAfter, type FolderEntry, OPEN_FLAGS, RACY_MS, trackedFs } from '@loadout/files';
import { DescriptorBudget, processDescriptorBudget } from './DescriptorBudget.js';
import { DEFAULT_ROOT_RETENTION, RootRetention, type RootRetentionLimits } from './RootRetention.js';
import { WatchBudget } from './WatchBudget.js';

interface EntryState<T> {
  value: T;
  readonly isDirectory: boolean;
  readonly refusal: FolderEntry['refusal'];
  dirty: boolean;
  watcher: fs.FSWatcher | null;
  /** The paths whose stat tells the entry's changes while it is unwatched ({@link probeOf}); null when none can (it is read at every open). */
  readonly probe: readonly string[] | null;
  /** While unwatched: what the probe looked like when the entry was read ({@link takeStamp}); null when it must be read again. */
  stamp: readonly number[] | null;
  /**
   * True when its document may be checked through a descriptor held on it (`FolderScanCache`'s
   * `holdDocument`): a real folder (not a link) whose value comes from that one document.
   */
  readonly mayHold: boolean;
  /** A read-only descriptor of the document, held while the entry is unwatched and its stamp stands; -1 when none. */
  fd: number;
  /** The document's number of links when {@link fd} was opened: a link removed or replaced lowers it. */
  links: number;
  /** True when the document could not be opened: checked by its path until it is read again. */
  unopenable: boolean;
}

interface FolderState<T> {
  readonly folder: string;
  readonly rootDir: string;
  /** The kind it holds (its singular name), so a session of some kinds checks only their folders. */
  readonly kind: string | undefined;
  /** The document inside each folder entry (`SKILL.md`), when the kind names one. */
  readonly documentFile: string | undefined;
  /** True when an entry's value comes from its document alone: an unwatched entry is checked by the document's stat only. */
  readonly documentAlone: boolean;
  /** Null when the folder does not exist. */
  entries: Map<string, EntryState<T>> | null;
  listingDirty: boolean;
  watcher: fs.FSWatcher | null;
  /** While unwatched: the folder as it was when listed; null when it must be listed again. */
  stamp: readonly number[] | null;
  /** The values {@link FolderScanCache.scan} handed last, handed again while every entry's value is the very same. */
  values: readonly T[] | null;
  /** True once an entry was marked to be read again ({@link markDirty}), until {@link FolderScanCache.scan} has read it. */
  dirtyEntries: boolean;
  /** True when the folder is a link (to a folder inside its root): its entries are checked by path, never by a held descriptor. */
  linked: boolean;
}

/** The one way an entry is marked to be read again: its folder learns it too, so a scan of a folder with none skips its entries. */
function markDirty<T>(state: FolderState<T>, entry: EntryState<T>): void {
  entry.dirty = true;
  state.dirtyEntries = true;
}

interface RootState {
  /** Watches the root for kind folders appearing or going (its parent while it is missing); null when unwatched. */
  readonly watcher: fs.FSWatcher | null;
  /** True when the root is missing. */
  readonly missing: boolean;
  /** While unwatched: the root and the files directly in it when it was first seen (a file added or removed moves the root's own stamp). */
  readonly probe: readonly string[];
  /** While unwatched: what {@link probe} looked like when the root was first seen; null when it cannot be trusted yet. */
  readonly stamp: readonly number[] | null;
  /**
   * While watched: the folder its path named just before the watch was made (device, inode, birth
   * and change times). A watch follows an inode, so a check while descriptors are held stats the
   * path to see that it still names that folder; null when unwatched, missing, or not stat'able.
   */
  readonly identity: readonly number[] | null;
}

/** How a cache bounds what it keeps (see {@link RootRetention}) and how many watches it may hold; `now` is for tests. */
export interface FolderScanCacheOptions extends Partial<RootRetentionLimits> {
  readonly now?: () => number;
  /** At most this many file watches (`LOADOUT_WATCH_BUDGET`); unlimited when absent. */
  readonly watchBudget?: number;
  /** How recent a change makes a stamp untrustworthy ({@link RACY_MS}); tests shorten it to show the stamps at work. */
  readonly racyMs?: number;
  /** At most this many descriptors held on unwatched documents; by default a share of the process's open-file limit, shared by every cache of the process ({@link processDescriptorBudget}). */
  readonly descriptorBudget?: number;
}

/**
 * Keeps what a long-running process read from each kind folder and drops exactly what changed on
 * disk. Changes are told by file watchers where the budget allows ({@link WatchBudget}): each root
 * (kind folders appearing or going), each kind folder (entries added, removed, single-file
 * documents edited) and each entry folder (its `SKILL.md` / `TASK.md` edited): kind folders
 * first, then roots, then entry folders. What is not watched — the budget is spent, or the system
 * refused a watch — is checked at each {@link validate} by a stat of the folder and of the entry's
 * document, so a document is never served stale; only its cost changes. An unwatched document in
 * a watched kind folder is checked through a read-only descriptor held on it ({@link
 * DescriptorBudget}), which costs about half a stat of its path. A session open in a quiet, fully
 * watched workspace reads nothing.
 *
 * What is kept is bounded by root: the roots of the session being opened, a few more recently
 * used ones, and none idle for long ({@link RootRetention}); a released root is read from the disk
 * again when a session next needs it. Every `?project=` is a root, so without this bound each one
 * asked for would hold its watches for the life of the server.
 *
 * `generation` changes whenever anything might have changed, once {@link validate} has run, so a
 * caller can keep results derived from a whole scan while it stays the same. One-shot commands do
 * not use this cache: they read the disk, so a hand edit is always seen.
 */
export class FolderScanCache<T = unknown> {
  private readonly folders = new Map<string, FolderState<T>>();
  private readonly roots = new Map<string, RootState>();
  /** Roots stamped but not watched yet: granted a watch by {@link watchEntries}, before any entry folder, while the budget allows. */
  private readonly unwatchedRoots = new Set<string>();
  /** Entry folders read but not watched yet, by path: granted a watch by {@link watchEntries} while the budget allows. */
  private readonly unwatchedEntries = new Map<string, { readonly folder: FolderState<T>; readonly entry: EntryState<T> }>();
  private readonly retention: RootRetention;
  private readonly budget: WatchBudget;
  private readonly descriptors: DescriptorBudget;
  /** The descriptors this cache holds (its budget may be shared with the process's other caches). */
  private heldDescriptors = 0;
  private readonly idleMs: number;
  private readonly racyMs: number;
  private sweeper: NodeJS.Timeout | null = null;
  private changes = 0;
  /** False once a whole {@link validate} found everything watched, until something may be unwatched again. */
  private mayPoll = true;
  /** The kinds (singular names) a {@link validate} of some kinds found watched through and through, until something may be unwatched again. */
  private readonly settledKinds = new Set<string>();
  /** How many checks ({@link validate}) have started; a {@link ticket} is this count when it was taken. */
  private checks = 0;
  /** The number of the last check of every kind, and of the last check of each kind. */
  private wholeCheckStarted = 0;
  private readonly kindCheckStarted = new Map<string, number>();

  constructor(options: FolderScanCacheOptions = {}) {
    const limits = { ...DEFAULT_ROOT_RETENTION, ...options };
    this.retention = new RootRetention(limits, options.now);
    this.budget = new WatchBudget(options.watchBudget);
    this.descriptors = options.descriptorBudget === undefined ? processDescriptorBudget() : new DescriptorBudget(options.descriptorBudget);
    this.idleMs = limits.idleMs;
    this.racyMs = options.racyMs ?? RACY_MS;
  }

  /** Changes whenever a watcher fires or {@link validate} finds an unwatched folder or document changed. */
  get generation(): number {
    return this.changes;
  }

  /** The file watches this cache holds open. */
  get watchCount(): number {
    return this.budget.held;
  }

  /** The descriptors this cache holds open on unwatched documents. */
  get descriptorCount(): number {
    return this.heldDescriptors;
  }

  /** The roots this cache keeps something for. */
  get rootCount(): number {
    return this.retention.size;
  }

  /** What a session should say about the cache: the system refused a watch, or the budget is spent. Empty when all is watched. */
  get diagnostics(): readonly Diagnostic[] {
    return this.budget.diagnostics();
  }

  /**
   * Checks what is not watched — roots, kind folders and entries — against the stamps taken when
   * they were read, marks what moved to be read again and bumps the generation if anything did.
   * Costs a stat or two per unwatched folder; nothing when everything is watched. With `kinds`,
   * only the roots and the folders of those kinds (singular names) are checked: what a session
   * of those kinds reads.
   */
  validate(kinds?: ReadonlySet<string>, since?: number): void {
    if (since !== undefined && this.checkedSince(kinds, since)) return;
    const started = ++this.checks;
    if (kinds === undefined) this.wholeCheckStarted = started;
    else for (const kind of kinds) this.kindCheckStarted.set(kind, started);
    if (!this.mayPoll) return;
    if (kinds !== undefined && [...kinds].every((kind) => this.settledKinds.has(kind))) return;
    const racyBefore = this.racyBefore();
    let rootPolled = false;
    for (const [rootDir, root] of this.roots) {
      if (root.watcher !== null) {
        // Held descriptors stand for their paths only while each root's path names the folder its
        // watch follows (a folder above it renamed or replaced moves nothing a watch sees).
        if (this.descriptors.held > 0 && !root.missing && !identityHolds(rootDir, root.identity)) this.forgetRoot(rootDir);
        continue;
      }
      rootPolled = true;
      if (!stampHolds(root.probe, root.stamp, racyBefore)) this.forgetRoot(rootDir);
    }
    const polledKinds = new Set<string | undefined>();
    for (const state of this.folders.values()) {
      if (kinds !== undefined && (state.kind === undefined || !kinds.has(state.kind))) continue;
      if (this.pollFolder(state, racyBefore)) polledKinds.add(state.kind);
    }
    // Only what was checked and found watched through and through may be left unchecked next time.
    if (rootPolled) return;
    if (kinds === undefined) {
      if (polledKinds.size === 0) this.mayPoll = false;
      return;
    }
    for (const kind of kinds) if (!polledKinds.has(kind)) this.settledKinds.add(kind);
  }

  /**
   * A number naming this moment, for {@link validate}'s `since`: a check that starts after it sees
   * every change made before it, so a caller that arrived then may take that check for its own.
   */
  ticket(): number {
    return this.checks;
  }

  /** Whether a check of `kinds` (every kind when absent) started after the ticket `since` was taken. */
  private checkedSince(kinds: ReadonlySet<string> | undefined, since: number): boolean {
    if (this.wholeCheckStarted > since) return true;
    if (kinds === undefined) return false;
    for (const kind of kinds) if ((this.kindCheckStarted.get(kind) ?? 0) <= since) return false;
    return true;
  }

  /** Checks one folder's unwatched parts against their stamps; true when it has any. */
  private pollFolder(state: FolderState<T>, racyBefore: number): boolean {
    let polled = false;
    // A missing kind folder directly in its root is told of by the root: its watch fires when the
    // folder is made, or its stamp (checked first, in the same validate) moves.
    const toldByRoot = state.entries === null && path.dirname(state.folder) === state.rootDir && this.roots.has(state.rootDir);
    if (state.watcher === null && !toldByRoot) {
      polled = true;
      if (!state.listingDirty && !stampHolds([state.folder], state.stamp, racyBefore)) this.markListing(state);
    }
    if (state.entries === null) return polled;
    for (const entry of state.entries.values()) {
      if (!this.isPolled(state, entry)) continue;
      polled = true;
      if (entry.dirty || this.entryHolds(state, entry, racyBefore)) continue;
      markDirty(state, entry);
      this.changes += 1;
    }
    return polled;
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
   * The values of every entry of `folder`, reading only what is new or changed: the very array
   * handed last time while every value in it is the same. Never change it.
   *
   * @param list lists the folder; null when it is missing
   * @param read reads one entry
   * @param of the kind the folder holds (its singular name), and the document inside each folder
   *   entry (`SKILL.md`), whose stat tells an unwatched entry's edits; without one an unwatched
   *   folder entry is read at every open. With `documentAlone` the entry's value depends on that
   *   document only, so the folder's own stat is left out.
   */
  scan(
    rootDir: string,
    folder: string,
    list: () => readonly FolderEntry[] | null,
    read: (entry: FolderEntry) => T,
    of: { readonly kind?: string; readonly documentFile?: string; readonly documentAlone?: boolean } = {},
  ): readonly T[] {
    const { documentFile } = of;
    this.retention.touch(rootDir);
    this.startSweeping();
    const root = this.rootState(rootDir);
    let state = this.folders.get(folder);
    if (state === undefined) {
      state = {
        folder,
        rootDir,
        kind: of.kind,
        documentFile,
        documentAlone: of.documentAlone === true,
        entries: null,
        listingDirty: true,
        watcher: null,
        stamp: null,
        values: null,
        dirtyEntries: false,
        linked: false,
      };
      this.folders.set(folder, state);
    }
    if (root.missing) {
      this.closeFolder(folder, state);
      state.entries = null;
      state.values = null;
      state.listingDirty = true;
      return [];
    }
    if (state.listingDirty) this.relist(folder, state, list, read);
    else if (!state.dirtyEntries && state.values !== null) return state.values;
    state.dirtyEntries = false;
    if (state.entries === null) return [];
    const racyBefore = this.racyBefore();
    // The array handed last is handed again while every entry's value is the very same object, in
    // the same order (compared here, entry by entry: nothing is assumed from flags), so a caller can
    // tell an unchanged folder by identity; a copy starts at the first value that differs.
    const kept = state.values ?? [];
    let values: T[] | null = null;
    let at = 0;
    for (const [name, entry] of state.entries) {
      if (entry.dirty) {
        entry.dirty = false;
        this.letGo(entry);
        entry.unopenable = false;
        entry.stamp = this.isPolled(state, entry) ? takeStamp(entry.probe, racyBefore) : null;
        entry.value = read({ name, isDirectory: entry.isDirectory, ...(entry.refusal === undefined ? {} : { refusal: entry.refusal }) });
      }
      if (values === null) {
        if (at < kept.length && kept[at] === entry.value) {
          at += 1;
          continue;
        }
        values = kept.slice(0, at);
      }
      values.push(entry.value);
    }
    if (values === null) {
      if (at === kept.length && state.values !== null) return state.values;
      values = kept.slice(0, at);
    }
    state.values = values;
    return values;
  }

  /**
   * Gives watches to roots, then to entry folders, read without one, while the budget allows:
   * called once every kind folder of a session was scanned, so kind folders got theirs first, then
   * roots. An entry that changed between its read and its watch is read again at the next open.
   */
  watchEntries(): void {
    if (this.unwatchedRoots.size > 0) this.watchRoots();
    if (this.unwatchedEntries.size === 0 || !this.budget.allowsEntry()) return;
    const racyBefore = this.racyBefore();
    for (const [entryPath, { folder, entry }] of this.unwatchedEntries) {
      if (!this.budget.allowsEntry()) break;
      entry.watcher = this.watchEntry(entryPath, folder, entry);
      if (entry.watcher === null) break;
      this.unwatchedEntries.delete(entryPath);
      this.letGo(entry);
      if (!stampHolds(entry.probe, entry.stamp, racyBefore)) {
        markDirty(folder, entry);
        this.changes += 1;
      }
      entry.stamp = null;
    }
  }

  /** Stops every watcher. */
  close(): void {
    this.stopSweeping();
    for (const [folder, state] of this.folders) this.closeFolder(folder, state);
    this.folders.clear();
    for (const root of this.roots.values()) this.budget.close(root.watcher);
    this.roots.clear();
    this.unwatchedRoots.clear();
    this.retention.clear();
  }

  /** Something may have become unwatched (a folder listed, a root seen, a watch lost): the next {@link validate} checks all it is asked to. */
  private mayNeedPolling(): void {
    this.mayPoll = true;
    this.settledKinds.clear();
  }

  /** A stamp taken now is trusted only for what changed before this time. */
  private racyBefore(): number {
    return Date.now() - this.racyMs;
  }

  /**
   * Whether an unwatched entry still looks as its stamp says. Its document is checked through the
   * descriptor held on it while its kind folder is watched, is a real folder and was not marked to
   * be listed again; otherwise by the stat of its path, as always (and a descriptor is let go).
   * After a path stat that holds, a descriptor is opened for the next check ({@link holdDocument}).
   */
  private entryHolds(state: FolderState<T>, entry: EntryState<T>, racyBefore: number): boolean {
    // What a descriptor cannot see — the entry folder renamed, replaced, or its mode changed — its
    // kind folder's watch tells of (by the entry's name), so only such a folder's entries may be
    // checked by one. A link's target is not watched at all.
    const byDescriptor = entry.mayHold && state.watcher !== null && !state.listingDirty && !state.linked;
    if (entry.fd >= 0) {
      if (byDescriptor) return descriptorHolds(entry, racyBefore);
      this.letGo(entry);
    }
    if (!stampHolds(entry.probe, entry.stamp, racyBefore)) return false;
    if (byDescriptor && !entry.unopenable && this.descriptors.allows()) this.holdDocument(entry, racyBefore);
    return true;
  }

  /**
   * Opens a read-only descriptor of the entry's document, just after a stat of its path matched the
   * stamp, and keeps it only when what it opened is that very file unchanged (its stats equal the
   * stamp, a regular file): from then on any link of the path to it removed or replaced, and any
   * write, moves its own change time or link count. Never fails the open: a refusal leaves the
   * document to its path stat (EMFILE and ENFILE also stop further opens).
   */
  private holdDocument(entry: EntryState<T>, racyBefore: number): void {
    const document = entry.probe?.[0];
    const stamp = entry.stamp;
    if (document === undefined || stamp === null || ((stamp[2] as number) & fs.constants.S_IFMT) !== fs.constants.S_IFREG) return;
    let fd: number;
    try {
      fd = trackedFs.openSync(document, OPEN_FLAGS);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EMFILE' || code === 'ENFILE') this.descriptors.refused();
      else entry.unopenable = true;
      return;
    }
    let links = 0;
    try {
      const stats = fs.fstatSync(fd);
      links = stats.nlink;
      if (changedAfter(stats, racyBefore) || !sameStamp(stats, stamp)) links = 0;
    } catch {
      links = 0;
    }
    if (links === 0) {
      fs.closeSync(fd);
      return;
    }
    entry.fd = fd;
    entry.links = links;
    this.descriptors.opened();
    this.heldDescriptors += 1;
  }

  /** Closes the entry's held descriptor, if any. */
  private letGo(entry: EntryState<T>): void {
    if (entry.fd < 0) return;
    try {
      fs.closeSync(entry.fd);
    } catch {
      // already gone: nothing to give back
    }
    entry.fd = -1;
    this.descriptors.closed();
    this.heldDescriptors -= 1;
  }

  /** Whether nothing tells the cache of this entry's changes, so {@link validate} must stat it. */
  private isPolled(state: FolderState<T>, entry: EntryState<T>): boolean {
    if (entry.refusal !== undefined) return false;
    return entry.isDirectory ? entry.watcher === null : state.watcher === null;
  }

  private markListing(state: FolderState<T>): void {
    state.listingDirty = true;
    this.changes += 1;
  }

  /** Forgets everything kept for `rootDir` and closes its watches; the next scan reads it again. */
  private release(rootDir: string): void {
    this.retention.forget(rootDir);
    this.budget.close(this.roots.get(rootDir)?.watcher ?? null);
    this.roots.delete(rootDir);
    for (const [folder, state] of this.folders) {
      if (state.rootDir !== rootDir) continue;
      this.closeFolder(folder, state);
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
    this.mayNeedPolling();
    // A watch follows the folder it was made on, not its path: one made before may now be on a
    // folder renamed away, or on one removed (whose watch goes quiet without an error), while a new
    // folder stands at the path. Each listing makes its own, before it lists (a change during the
    // listing is not lost), or stamps the folder when the budget gives none.
    this.budget.close(state.watcher);
    state.watcher = this.watch(
      folder,
      'structure',
      (name) => {
        state.listingDirty = true;
        const entry = name === null ? undefined : state.entries?.get(name);
        if (entry !== undefined) markDirty(state, entry);
      },
      () => {
        state.watcher = null;
        state.listingDirty = true;
        for (const entry of state.entries?.values() ?? []) if (!entry.isDirectory) markDirty(state, entry);
      },
    );
    const racyBefore = this.racyBefore();
    state.stamp = state.watcher === null ? takeStamp([folder], racyBefore) : null;
    state.linked = isLink(folder);
    const listed = list();
    if (listed === null) {
      this.closeFolder(folder, state);
      state.entries = null;
      return;
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
        dirent.refusal === undefined;
      if (reusable) {
        // Its descriptor was opened before this listing; one is opened afresh after a path stat.
        this.letGo(known as EntryState<T>);
        next.set(dirent.name, known as EntryState<T>);
        continue;
      }
      if (known !== undefined) this.closeEntry(path.join(folder, dirent.name), known);
      const probe = probeOf(folder, dirent.name, dirent.isDirectory, state);
      const mayHold =
        state.documentAlone &&
        dirent.isDirectory &&
        dirent.realPath === undefined &&
        dirent.refusal === undefined &&
        probe !== null &&
        probe.length === 1;
      const entry: EntryState<T> = {
        value: undefined as T,
        isDirectory: dirent.isDirectory,
        refusal: dirent.refusal,
        dirty: false,
        watcher: null,
        probe,
        stamp: null,
        mayHold,
        fd: -1,
        links: 0,
        unopenable: false,
      };
      if (this.isPolled(state, entry)) entry.stamp = takeStamp(probe, racyBefore);
      entry.value = read(dirent);
      if (dirent.isDirectory && dirent.refusal === undefined)
        this.unwatchedEntries.set(path.join(folder, dirent.name), { folder: state, entry });
      next.set(dirent.name, entry);
    }
    for (const [name, gone] of previous) this.closeEntry(path.join(folder, name), gone);
    state.entries = next;
  }

  /** Watches one entry folder; when the watcher fails later it is dropped, checked by stat, and watched again when the budget allows. */
  private watchEntry(entryPath: string, folder: FolderState<T>, entry: EntryState<T>): fs.FSWatcher | null {
    return this.watch(
      entryPath,
      'entry',
      () => {
        markDirty(folder, entry);
      },
      () => {
        entry.watcher = null;
        markDirty(folder, entry);
        this.unwatchedEntries.set(entryPath, { folder, entry });
      },
    );
  }

  /** The root's state; made on first use, watched when the budget allows and stamped when not. */
  private rootState(rootDir: string): RootState {
    const known = this.roots.get(rootDir);
    if (known !== undefined) return known;
    this.mayNeedPolling();
    if (!isDirectory(rootDir)) {
      const watcher = this.watch(
        path.dirname(rootDir),
        'structure',
        (name) => {
          if (name === null || name === path.basename(rootDir)) this.forgetRoot(rootDir);
        },
        () => this.forgetRoot(rootDir),
      );
      const state: RootState = { watcher, missing: true, probe: [], stamp: null, identity: null };
      this.roots.set(rootDir, state);
      return state;
    }
    // Stamped now and watched once the session's kind folders have their watches ({@link watchRoots}).
    // The root is stamped before it is listed: a file added after the listing moves that stamp.
    const racyBefore = this.racyBefore();
    const own = takeStamp([rootDir], racyBefore);
    const probe = rootProbe(rootDir);
    const files = takeStamp(probe.slice(1), racyBefore);
    const state: RootState = {
      watcher: null,
      missing: false,
      probe,
      stamp: own === null || files === null ? null : [...own, ...files],
      identity: null,
    };
    this.roots.set(rootDir, state);
    this.unwatchedRoots.add(rootDir);
    return state;
  }

  /**
   * Gives watches to roots seen without one, while the budget allows: after the session's kind
   * folders took theirs, since a kind folder's watch is worth more — it lets each of its entries be
   * checked through a held descriptor — while an unwatched root costs a stat or two. The folders of
   * a root that changed between its stamp and its watch are listed again at the next open.
   */
  private watchRoots(): void {
    const racyBefore = this.racyBefore();
    for (const rootDir of this.unwatchedRoots) {
      const root = this.roots.get(rootDir);
      if (root === undefined || root.missing || root.watcher !== null) {
        this.unwatchedRoots.delete(rootDir);
        continue;
      }
      // Taken before the watch is made: a root replaced in between fails the next check, never passes it.
      const identity = identityOf(rootDir);
      const watcher = this.watch(
        rootDir,
        'structure',
        (name) => {
          for (const state of this.folders.values()) {
            if (state.rootDir === rootDir && (name === null || path.basename(state.folder) === name)) state.listingDirty = true;
          }
        },
        () => this.forgetRoot(rootDir),
      );
      if (watcher === null) return;
      this.unwatchedRoots.delete(rootDir);
      this.roots.set(rootDir, { watcher, missing: false, probe: [], stamp: null, identity });
      // What changed since the stamp (or too recently to tell) is read again: its folders are listed
      // afresh, as when an unwatched root's stamp moves; what changes from now on, the watch tells.
      if (!stampHolds(root.probe, root.stamp, racyBefore)) this.relistRoot(rootDir);
    }
  }

  /** The root changed in a way that may add or remove kind folders: its folders are listed again, its watch made again. */
  private forgetRoot(rootDir: string): void {
    this.budget.close(this.roots.get(rootDir)?.watcher ?? null);
    this.roots.delete(rootDir);
    this.relistRoot(rootDir);
  }

  /** Every folder of `rootDir` is listed again at its next scan, and the generation moves. */
  private relistRoot(rootDir: string): void {
    this.changes += 1;
    for (const state of this.folders.values()) if (state.rootDir === rootDir) state.listingDirty = true;
  }

  private closeFolder(folder: string, state: FolderState<T>): void {
    this.budget.close(state.watcher);
    state.watcher = null;
    if (state.entries !== null) for (const [name, entry] of state.entries) this.closeEntry(path.join(folder, name), entry);
  }

  private closeEntry(entryPath: string, entry: EntryState<T>): void {
    this.budget.close(entry.watcher);
    entry.watcher = null;
    this.letGo(entry);
    if (this.unwatchedEntries.get(entryPath)?.entry === entry) this.unwatchedEntries.delete(entryPath);
  }

  private watch(
    dir: string,
    priority: 'structure' | 'entry',
    onChange: (name: string | null) => void,
    onError: () => void,
  ): fs.FSWatcher | null {
    return this.budget.watch(
      dir,
      priority,
      (name) => {
        this.changes += 1;
        onChange(name);
      },
      () => {
        this.changes += 1;
        this.mayNeedPolling();
        onChange(null);
        onError();
      },
    );
  }
}

/**
 * What tells an unwatched root's changes: the folder, and every file directly in it (a root's own
 * documents, such as its gate settings, are read at each open and may be edited in place). The
 * list is taken once: a file added, removed or renamed moves the root's own stamp.
 */
function rootProbe(rootDir: string): string[] {
  const probe = [rootDir];
  try {
    for (const dirent of trackedFs.readdirSync(rootDir, { withFileTypes: true }))
      if (!dirent.isDirectory()) probe.push(path.join(rootDir, dirent.name));
  } catch {
    // missing or unreadable: the folder's own stat tells which
  }
  return probe;
}

/**
 * What to stat to see an unwatched entry change without reading it: the entry itself and, for a
 * folder entry, its document — the document alone when the kind reads nothing else of the folder
 * (an entry folder replaced or renamed changes its kind folder, which is watched or stamped
 * itself, and the document's identity with it). Null for a folder entry whose kind names no
 * document: it is read at every open. Kept on the entry, so a check joins no paths.
 */
function probeOf(
  folder: string,
  name: string,
  isDirectory: boolean,
  of: { readonly documentFile: string | undefined; readonly documentAlone: boolean },
): string[] | null {
  const entryPath = path.join(folder, name);
  if (!isDirectory) return [entryPath];
  if (of.documentFile === undefined) return null;
  const document = path.join(entryPath, of.documentFile);
  return of.documentAlone ? [document] : [entryPath, document];
}

/** Numbers a stamp keeps per path: inode, size, mode, modification and change times. */
const STAMP_FIELDS = 5;
/** The first field of a path that is not there; one that could not be stat'ed has a code of {@link errorMark}. */
const MISSING = -1;
const errorMarks = new Map<string, number>();
/** A number per error code (below {@link MISSING}), so a path that fails differently moves its stamp. */
function errorMark(error: unknown): number {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  let mark = errorMarks.get(code);
  if (mark === undefined) {
    mark = MISSING - 1 - errorMarks.size;
    errorMarks.set(code, mark);
  }
  return mark;
}

/**
 * Stats each path into `into` (five numbers a path, from `at`): false when one was changed after
 * `racyBefore`, too recently for its times to be trusted. Numbers, not a string: a check builds
 * nothing it would throw away. `statSync` without bigints and with `throwIfNoEntry: false` is the
 * cheapest stat Node offers (measured against bigint stats and thrown ENOENTs).
 */
function statInto(paths: readonly string[], racyBefore: number, into: number[]): boolean {
  for (let i = 0; i < paths.length; i += 1) {
    const at = i * STAMP_FIELDS;
    let stats: fs.Stats | undefined;
    let mark = MISSING;
    try {
      stats = trackedFs.statSync(paths[i] as string, { throwIfNoEntry: false });
    } catch (error) {
      mark = errorMark(error);
    }
    if (stats !== undefined && changedAfter(stats, racyBefore)) return false;
    into[at] = stats === undefined ? mark : stats.ino;
    into[at + 1] = stats === undefined ? 0 : stats.size;
    into[at + 2] = stats === undefined ? 0 : stats.mode;
    into[at + 3] = stats === undefined ? 0 : stats.mtimeMs;
    into[at + 4] = stats === undefined ? 0 : stats.ctimeMs;
  }
  return true;
}

/**
 * The identity and times of each path, which move when any of them is written, replaced, removed
 * or made. Null when one changed too recently to be trusted ({@link statInto}), and for no paths.
 */
function takeStamp(paths: readonly string[] | null, racyBefore: number): readonly number[] | null {
  if (paths === null) return null;
  const stamp: number[] = [];
  return statInto(paths, racyBefore, stamp) ? stamp : null;
}

/** One check's numbers, reused: a check allocates nothing of its own. */
const scratch: number[] = [];

/** Whether `paths` still look as `stamp` says (false when there is no stamp, or one changed too recently to tell). */
function stampHolds(paths: readonly string[] | null, stamp: readonly number[] | null, racyBefore: number): boolean {
  if (paths === null || stamp === null || stamp.length !== paths.length * STAMP_FIELDS) return false;
  if (!statInto(paths, racyBefore, scratch)) return false;
  for (let i = 0; i < stamp.length; i += 1) if (scratch[i] !== stamp[i]) return false;
  return true;
}

/** Whether `stats` (of a held descriptor) show the very file `stamp` was taken of, unchanged. */
function sameStamp(stats: fs.Stats, stamp: readonly number[]): boolean {
  return (
    stamp[0] === stats.ino && stamp[1] === stats.size && stamp[2] === stats.mode && stamp[3] === stats.mtimeMs && stamp[4] === stats.ctimeMs
  );
}

/**
 * Whether an entry's document, through the descriptor held on it, is as its stamp says: the same
 * size, mode and times, and as many links. Its path cannot have come to name another file
 * without one of those moving — a write moves the times, and the path's link removed, renamed
 * away or replaced by a rename over it moves the file's change time and (but for a rename away)
 * lowers its links — and the held file's inode cannot be reused while it is open. False when it
 * changed too recently to be trusted, as for a path stat.
 */
function descriptorHolds(
  entry: { readonly fd: number; readonly links: number; readonly stamp: readonly number[] | null },
  racyBefore: number,
): boolean {
  const stamp = entry.stamp;
  if (stamp === null) return false;
  let stats: fs.Stats;
  try {
    stats = fs.fstatSync(entry.fd);
  } catch {
    return false;
  }
  return !changedAfter(stats, racyBefore) && stats.nlink === entry.links && sameStamp(stats, stamp);
}

/** The folder a path names now: device, inode, birth and change times; null when it cannot be stat'ed. */
function identityOf(dir: string): readonly number[] | null {
  try {
    const stats = trackedFs.statSync(dir, { throwIfNoEntry: false });
    return stats === undefined ? null : [stats.dev, stats.ino, stats.birthtimeMs, stats.ctimeMs];
  } catch {
    return null;
  }
}

/** Whether `dir` still names the folder `identity` was taken of (false when it was not taken). */
function identityHolds(dir: string, identity: readonly number[] | null): boolean {
  if (identity === null) return false;
  const now = identityOf(dir);
  return now !== null && now.every((value, at) => value === identity[at]);
}

/** Whether `folder` is a link (true also when it cannot be told: such a folder's entries are checked by path). */
function isLink(folder: string): boolean {
  try {
    return trackedFs.lstatSync(folder, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
  } catch {
    return true;
  }
}

function isDirectory(dir: string): boolean {
  try {
    return trackedFs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
