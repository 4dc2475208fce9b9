import fs from 'node:fs';
import path from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import { CapabilityFilters } from './CapabilityFilter.js';
import { type CapabilityHold, CapabilityHolds, withHolds } from './CapabilityHold.js';
import type { SessionScope } from './CapabilityFilter.js';
import { ChangeStamps } from './ChangeStamp.js';
import { CapabilityKinds, type CapabilityKind, type CapabilityRecord } from './CapabilityKind.js';
import { collisionKey } from './capabilityId.js';
import type { Diagnostic } from './Diagnostic.js';
import { FolderScanCache } from './FolderScanCache.js';
import type { FolderEntry } from './listFolderInside.js';
import { InvalidInputError } from './LoadoutError.js';
import { PluginSource } from './PluginSource.js';
import { PROJECT_ROOT_FOLDER, type Root, RootList } from './Root.js';
import type { RootLayout } from './RootLayout.js';
import { Session } from './Session.js';
import { SessionSections } from './SessionSection.js';
import { Places } from './Places.js';
import { cachedAs, layoutSourcesOf, listKindFolder, readKindFolderEntry, scanRootLayout, type StampedScan } from './scanKindFolder.js';
import { changedPlaces, sameItems } from './sameItems.js';
import { shadowRecords } from './shadowRecords.js';
import { resolve, resolveAll } from './token.js';

export interface OpenSessionOptions {
  /** The folder the agent works in; its `.agents` folder is the project level root. */
  readonly project?: string | null;
  /**
   * Read only these kinds (singular names, e.g. `task`), for a caller that needs one kind: a task
   * lookup, a list. The session then holds only their records and renders no blocks. Every kind
   * when absent.
   */
  readonly kinds?: readonly string[];
  /**
   * A {@link SessionLoader.ticket} taken when the caller's request arrived: a check of the disk
   * that started after it (the one behind the caller's {@link SessionLoader.changeStamp}) stands
   * for this open's own.
   */
  readonly checkedSince?: number;
}

/** Every capability found in a list of roots, before shadowing and state. */
export interface RootScan {
  /** Per kind (singular name), every record of every root in root order. */
  readonly records: ReadonlyMap<string, readonly CapabilityRecord[]>;
  readonly diagnostics: readonly Diagnostic[];
}

/** A record in a listing of every copy of a kind: whether the session has it, and what wins over it. */
export type ListedRecord<R extends CapabilityRecord = CapabilityRecord> = R & {
  /** Whether this copy is in the session: the winner of its id, and switched on. */
  readonly on: boolean;
  /** The path of the copy that wins over this one, or null when this one wins. */
  readonly shadowedBy: string | null;
};

/**
 * Opens sessions. The root list is built when a session opens — the project's `.agents`, the
 * owner's capabilities repo, then each installed and enabled plugin in install order — so a
 * document written a moment ago is in the next session and a plugin disabled a moment ago is not.
 */
export class SessionLoader {
  /**
   * A number per layout seen, by identity: a plugin source that keeps a layout while its plugin
   * is unchanged hands the same object again, so the roots' key costs no serialization. Layouts
   * are read-only; a new reading is a new object and a new number.
   */
  private readonly layoutIds = new WeakMap<RootLayout, number>();
  private nextLayoutId = 0;
  /** The last roots' shadowed scans, per kind, each with the cache generation it was read under. */
  private memo: { key: string; kinds: Map<string, { readonly shadowed: ShadowedKind; readonly generation: number }> } | null = null;
  /** The last winners handed out, with the per-kind results they were joined from: the same results give the same array. */
  private joined: { readonly from: readonly ShadowedKind[]; readonly winners: readonly CapabilityRecord[]; readonly diagnostics: readonly Diagnostic[] } | null = null;
  /** The last admitted winners sorted into session keys ({@link groupByKey}). */
  private grouped: Grouped | null = null;
  /** Root → kind folder name → the folder's path ({@link kindFolderPath}). */
  private readonly kindFolderPaths = new Map<string, Map<string, string>>();

  constructor(private readonly container: DependencyContainer) {}

  /**
   * Resolves a project folder to the real path its state and roots are keyed by. A folder that is
   * not there (or not a folder) is `PROJECT_NOT_FOUND`; one the file system will not open (no
   * permission, a link loop) is `PROJECT_UNREADABLE`, with the file system's error as its cause.
   */
  static resolveProject(project: string): string {
    const absolute = path.resolve(project);
    let real: string;
    try {
      real = fs.realpathSync(absolute);
      if (fs.statSync(real).isDirectory()) return real;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        const reason = code === 'ELOOP' ? 'a link in a loop' : (code ?? 'error');
        throw new InvalidInputError('PROJECT_UNREADABLE', `project folder ${project} cannot be opened (${reason})`, { cause: error });
      }
      throw new InvalidInputError('PROJECT_NOT_FOUND', `project folder ${project} does not exist`, { cause: error });
    }
    throw new InvalidInputError('PROJECT_NOT_FOUND', `project folder ${project} is not a folder`);
  }

  /** The roots a session sees, in precedence order. `includeDisabled` adds disabled plugins too. */
  buildRoots(project: string | null, options: { includeDisabled?: boolean } = {}): Root[] {
    const places = resolve(this.container, Places);
    const roots: Root[] = [];
    if (project !== null) {
      roots.push({ dir: path.join(project, PROJECT_ROOT_FOLDER), level: 'project', plugin: null, writable: true });
    }
    roots.push({ dir: places.capabilitiesDir, level: 'global', plugin: null, writable: true });
    for (const plugin of resolve(this.container, PluginSource).listInstalledPlugins()) {
      if (plugin.enabled || options.includeDisabled === true) {
        roots.push({ dir: plugin.dir, level: 'global', plugin: plugin.name, writable: false, ...(plugin.layout === undefined ? {} : { layout: plugin.layout }) });
      }
    }
    return roots;
  }

  /**
   * A string that stays the same while nothing a session shows can have changed: the watch
   * cache's generation, once what it does not watch was checked, and every {@link ChangeStamps}
   * contribution. Null without a watch cache (a one-shot command reads the disk each time). Let
   * queued watcher events arrive first ({@link settleWatchers}). With `since` (a {@link ticket}
   * taken when the caller's request arrived), a check that started after it stands for this one:
   * requests waiting together share one stat pass, never one that started before they came.
   */
  changeStamp(since?: number): string | null {
    const cache = this.cache();
    if (cache === null) return null;
    cache.validate(undefined, since);
    let stamp = String(cache.generation);
    for (const contributed of resolveAll(this.container, ChangeStamps)) stamp += `/${contributed.current()}`;
    return stamp;
  }

  /** A number naming this moment, for `since` / `checkedSince`: see {@link changeStamp}. 0 without a watch cache. */
  ticket(): number {
    return this.cache()?.ticket() ?? 0;
  }

  /** Opens a session in its own child container. */
  async open(options: OpenSessionOptions = {}): Promise<Session> {
    const project =
      options.project === undefined || options.project === null ? null : SessionLoader.resolveProject(options.project);
    const roots = this.buildRoots(project);
    const cache = this.cache();
    if (cache !== null) await settleWatchers();
    const kinds = this.kinds(options.kinds);
    const scanned = this.shadowedScan(roots, kinds, options.checkedSince);
    const diagnostics: Diagnostic[] = [];
    for (const root of roots) {
      const problem = checkRoot(root);
      if (problem !== null) diagnostics.push(problem);
    }
    for (const diagnostic of scanned.diagnostics) diagnostics.push(diagnostic);
    if (cache !== null) diagnostics.push(...cache.diagnostics);
    for (const root of roots) if (root.layout !== undefined) diagnostics.push(...root.layout.diagnostics);
    const filters = await Promise.all(resolveAll(this.container, CapabilityFilters).map((filter) => filter.forSession({ project, roots })));
    const holders = await Promise.all(resolveAll(this.container, CapabilityHolds).map((holder) => holder.forSession({ project, roots })));
    // What is on is decided first; of that, what runs something untrusted is held, never dropped.
    const admit = (records: readonly CapabilityRecord[], report?: Diagnostic[]): readonly CapabilityRecord[] => {
      let kept = records;
      for (const filter of filters) {
        const filtered = filter(kept);
        kept = filtered.records;
        report?.push(...filtered.diagnostics);
      }
      for (const holder of holders) kept = withHolds(kept, holder(kept));
      return kept;
    };
    const winners = admit(scanned.winners, diagnostics);
    const kindKeys = new Map<string, string>();
    for (const kind of this.kinds()) kindKeys.set(kind.kind, kind.sessionKey);
    const byKey = this.groupByKey(winners, kinds, kindKeys);
    const child = this.container.createChildContainer();
    const session = new Session({
      project,
      roots,
      recordsByKey: byKey,
      kindKeys,
      diagnostics,
      container: child,
      admit: (records) => admit(records),
    });
    child.register(Session, { useValue: session });
    child.register(RootList, { useValue: roots });
    const sections = options.kinds === undefined ? resolveAll(this.container, SessionSections) : [];
    for (const section of sections) {
      const rendered = section.render(session);
      session.sections.set(section.key, rendered.text);
      diagnostics.push(...rendered.diagnostics);
    }
    return session;
  }

  /**
   * The admitted records per session key. Kept while the filters and holders hand back the very
   * same array for the same kinds (they do while nothing they depend on moved: records are never
   * changed once made), so a warm open does not sort 10,000 records into kinds again. After a few
   * records changed in place (the same length, each new record of the same session key as the
   * one it replaces), each takes its predecessor's place in a copy of its kind's list: sorting
   * keeps order within a kind, so that is exactly where it would have gone.
   */
  private groupByKey(winners: readonly CapabilityRecord[], kinds: readonly CapabilityKind[], kindKeys: ReadonlyMap<string, string>): Map<string, readonly CapabilityRecord[]> {
    const kept = this.grouped;
    if (kept !== null && kept.winners === winners && sameItems(kept.kinds, kinds)) return new Map(kept.byKey);
    const patched = kept !== null && sameItems(kept.kinds, kinds) ? patchGroups(kept, winners, kindKeys) : null;
    if (patched !== null) {
      this.grouped = { winners, kinds, byKey: patched, places: kept?.places as Uint32Array };
      return new Map(patched);
    }
    const byKey = new Map<string, CapabilityRecord[]>();
    const places = new Uint32Array(winners.length);
    for (const kind of kinds) byKey.set(kind.sessionKey, []);
    for (let i = 0; i < winners.length; i += 1) {
      const record = winners[i] as CapabilityRecord;
      const group = byKey.get(kindKeys.get(record.kind) ?? '');
      if (group !== undefined) places[i] = group.push(record) - 1;
    }
    this.grouped = this.cache() === null ? null : { winners, kinds, byKey, places };
    return new Map(byKey);
  }

  /**
   * The hold the session holders (trust) put on `record` in a session of `scope`, whether the
   * record is on or not; null when none does. For a path that would hand a record to a runtime
   * outside a session (a move to another level, a restore from the trash): what is off now may be
   * on later, and a hold must follow it there.
   */
  async holdOf(record: CapabilityRecord, scope: SessionScope): Promise<CapabilityHold | null> {
    for (const holder of resolveAll(this.container, CapabilityHolds)) {
      const hold = (await holder.forSession(scope))([record]).get(record);
      if (hold !== undefined) return hold;
    }
    return null;
  }

  /** Reads every kind folder of every root. Shadowed records are all kept here. */
  scanRoots(roots: readonly Root[], kinds: readonly CapabilityKind[] = this.kinds()): RootScan {
    const records = new Map<string, CapabilityRecord[]>();
    const diagnostics: Diagnostic[] = [];
    for (const [kind, parts] of this.collectScans(roots, kinds)) {
      const flat = flatten(parts);
      records.set(kind, flat.records);
      diagnostics.push(...flat.diagnostics);
    }
    return { records, diagnostics };
  }

  /**
   * Every record of `kind` (its singular name) in the roots of a session for `project`, in root
   * order, shadowed and switched-off copies included: what a list command shows. With
   * `includeDisabled`, disabled plugins' roots are listed too; a session does not read them, so
   * their copies are never `on` and never win over a copy it reads (see {@link shadowRecords}).
   */
  async listRecords<R extends CapabilityRecord = CapabilityRecord>(
    kind: string,
    project: string | null,
    options: { includeDisabled?: boolean } = {},
  ): Promise<ListedRecord<R>[]> {
    const session = await this.open({ project, kinds: [kind] });
    try {
      const roots = options.includeDisabled === true ? this.buildRoots(session.project, { includeDisabled: true }) : session.roots;
      const records = (this.scanRoots(roots, this.kinds([kind])).records.get(kind) ?? []) as readonly R[];
      const readPlugins = new Set(session.roots.map((root) => root.plugin));
      const { shadowedBy } = shadowRecords(records, { isRead: (record) => readPlugins.has(record.plugin) });
      return records.map((record) => ({
        ...record,
        on: session.find(kind, record.id)?.path === record.path,
        shadowedBy: shadowedBy.get(record)?.path ?? null,
      }));
    } finally {
      session.dispose();
    }
  }

  /**
   * Every entry's scan, per kind (singular name): one part per root, in root order; from the watch
   * cache when there is one, which hands a folder's very same array while nothing in it changed.
   */
  private collectScans(roots: readonly Root[], kinds: readonly CapabilityKind[]): Map<string, (readonly StampedScan[])[]> {
    const cache = this.cache();
    const byKind = new Map<string, (readonly StampedScan[])[]>();
    const rootListings = new Map<string, Map<string, fs.Dirent> | null>();
    const listRoot = (root: Root): Map<string, fs.Dirent> | null => {
      if (!rootListings.has(root.dir)) rootListings.set(root.dir, readRoot(root.dir));
      return rootListings.get(root.dir) ?? null;
    };
    for (const kind of kinds) {
      const parts: (readonly StampedScan[])[] = [];
      byKind.set(kind.kind, parts);
      for (const root of roots) {
        const sources = layoutSourcesOf(kind, root);
        if (sources !== null) {
          parts.push(scanRootLayout(kind, root, sources, cache));
          continue;
        }
        const folder = this.kindFolderPath(root.dir, kind.folder);
        const list = (): readonly FolderEntry[] | null => {
          const dirent = listRoot(root)?.get(kind.folder);
          return dirent === undefined ? null : listKindFolder(kind, root, dirent);
        };
        const at = { folder };
        const read = (entry: FolderEntry): StampedScan => readKindFolderEntry(kind, root, entry, at);
        parts.push(cache === null ? (list() ?? []).map(read) : cache.scan(root.dir, folder, list, read, cachedAs(kind)));
      }
    }
    cache?.trim(new Set(roots.map((root) => root.dir)));
    cache?.watchEntries();
    return byKind;
  }

  /**
   * A kind folder's path, joined once per root and handed again as the very same string: the watch
   * cache finds its folders by path, and a string it was given before is found by identity, where
   * a freshly joined one is hashed and compared character by character (~0.4 ms a session over
   * 101 roots here). Forgotten wholesale past {@link MAX_KEPT_FOLDER_ROOTS} roots.
   */
  private kindFolderPath(rootDir: string, folder: string): string {
    let byFolder = this.kindFolderPaths.get(rootDir);
    if (byFolder === undefined) {
      if (this.kindFolderPaths.size >= MAX_KEPT_FOLDER_ROOTS) this.kindFolderPaths.clear();
      byFolder = new Map();
      this.kindFolderPaths.set(rootDir, byFolder);
    }
    let joined = byFolder.get(folder);
    if (joined === undefined) {
      joined = path.join(rootDir, folder);
      byFolder.set(folder, joined);
    }
    return joined;
  }

  private layoutId(layout: RootLayout): number {
    let id = this.layoutIds.get(layout);
    if (id === undefined) {
      id = this.nextLayoutId++;
      this.layoutIds.set(layout, id);
    }
    return id;
  }

  /** The kinds contributed by store packages, in registration order; only those named (singular names) when `only` is given. */
  kinds(only?: readonly string[]): CapabilityKind[] {
    const all = resolveAll(this.container, CapabilityKinds);
    return only === undefined ? all : all.filter((kind) => only.includes(kind.kind));
  }

  private cache(): FolderScanCache<StampedScan> | null {
    return this.container.isRegistered(FolderScanCache, true)
      ? (this.container.resolve(FolderScanCache) as FolderScanCache<StampedScan>)
      : null;
  }

  /**
   * The scan of `roots` with shadowing applied. With the watch cache it is kept while no watcher
   * fires and no unwatched folder's stamp moved, so a session open in a quiet workspace does no per-document work; after a change, a
   * kind whose entries were only edited in place (same ids, same paths) is patched rather than
   * shadowed again from scratch.
   */
  private shadowedScan(
    roots: readonly Root[],
    wanted: readonly CapabilityKind[],
    checkedSince: number | undefined,
  ): { winners: readonly CapabilityRecord[]; diagnostics: readonly Diagnostic[] } {
    const cache = this.cache();
    cache?.validate(new Set(wanted.map((kind) => kind.kind)), checkedSince);
    const key = roots.map((root) => `${root.level}\0${root.plugin ?? ''}\0${root.dir}\0${root.layout === undefined ? '' : this.layoutId(root.layout)}`).join('\n');
    const generation = cache?.generation;
    const memo = cache !== null && this.memo !== null && this.memo.key === key ? this.memo : null;
    const shadowed = new Map<string, ShadowedKind>();
    for (const kind of wanted) {
      const kept = memo?.kinds.get(kind.kind);
      if (kept !== undefined && kept.generation === generation) shadowed.set(kind.kind, kept.shadowed);
    }
    const stale = wanted.filter((kind) => !shadowed.has(kind.kind));
    if (stale.length > 0) {
      for (const [kind, parts] of this.collectScans(roots, stale)) {
        const previous = memo?.kinds.get(kind)?.shadowed;
        shadowed.set(kind, (previous === undefined ? null : patchKind(previous, parts)) ?? shadowKind(parts));
      }
    }
    // Kept only when nothing changed while it was read; a kind's older scan stays as the base to patch.
    if (cache !== null && generation !== undefined) {
      const kept = memo?.kinds ?? new Map<string, { readonly shadowed: ShadowedKind; readonly generation: number }>();
      if (cache.generation === generation) for (const [kind, result] of shadowed) kept.set(kind, { shadowed: result, generation });
      this.memo = { key, kinds: kept };
    }
    // The same per-kind results joined again give the same array, so what is derived from it
    // downstream (the state filter, holds, the grouping by kind) can be kept by its identity.
    const from = wanted.map((kind) => shadowed.get(kind.kind) as ShadowedKind);
    if (this.joined !== null && sameItems(this.joined.from, from)) return this.joined;
    // One copy of each kind's list (concat copies whole lists), not a push per record.
    const winners = ([] as CapabilityRecord[]).concat(...from.map((result) => result.winners));
    const diagnostics = ([] as Diagnostic[]).concat(...from.map((result) => result.diagnostics));
    const joined = { from, winners, diagnostics };
    // Only a watch cache hands the same results again; without one nothing is kept alive for nothing.
    this.joined = cache === null ? null : joined;
    return joined;
  }
}

/** Roots whose kind folder paths are kept; more (a server asked for many projects) starts afresh. */
const MAX_KEPT_FOLDER_ROOTS = 512;

/** Admitted winners sorted into session keys, with each winner's place in its key's list. */
interface Grouped {
  readonly winners: readonly CapabilityRecord[];
  readonly kinds: readonly CapabilityKind[];
  readonly byKey: ReadonlyMap<string, readonly CapabilityRecord[]>;
  /** For each winner (by its index), its index in its session key's list. */
  readonly places: Uint32Array;
}

/**
 * `kept`'s grouping with the records that changed put in their predecessors' places, or null when
 * the winners differ by more than a few records changed in place under the same session key.
 */
function patchGroups(kept: Grouped, winners: readonly CapabilityRecord[], kindKeys: ReadonlyMap<string, string>): Map<string, readonly CapabilityRecord[]> | null {
  const changed = changedPlaces(kept.winners, winners, MAX_PATCHED_ENTRIES);
  if (changed === null) return null;
  const byKey = new Map(kept.byKey);
  const copied = new Set<string>();
  for (const i of changed) {
    const before = kept.winners[i] as CapabilityRecord;
    const after = winners[i] as CapabilityRecord;
    const key = kindKeys.get(after.kind);
    if (key === undefined || kindKeys.get(before.kind) !== key) return null;
    const group = byKey.get(key);
    if (group === undefined) return null;
    let list = group as CapabilityRecord[];
    if (!copied.has(key)) {
      list = group.slice();
      byKey.set(key, list);
      copied.add(key);
    }
    const place = kept.places[i] as number;
    if (list[place] !== before) return null;
    list[place] = after;
  }
  return byKey;
}

/** One kind's shadowed scan, kept so the next scan can patch it. */
interface ShadowedKind {
  /** Each root's scans, in root order. */
  readonly parts: readonly (readonly StampedScan[])[];
  readonly winners: readonly CapabilityRecord[];
  readonly diagnostics: readonly Diagnostic[];
}

function flatten(parts: readonly (readonly StampedScan[])[]): { records: CapabilityRecord[]; diagnostics: Diagnostic[] } {
  const records: CapabilityRecord[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const scans of parts) {
    for (const scan of scans) {
      if (scan.diagnostics.length > 0) diagnostics.push(...scan.diagnostics);
      for (const record of scan.records) records.push(record);
    }
  }
  return { records, diagnostics };
}

function shadowKind(parts: readonly (readonly StampedScan[])[]): ShadowedKind {
  const flat = flatten(parts);
  const shadowing = shadowRecords(flat.records);
  for (const diagnostic of shadowing.diagnostics) flat.diagnostics.push(diagnostic);
  return { parts, winners: shadowing.winners, diagnostics: flat.diagnostics };
}

/** More changed entries than this and a kind is shadowed again from scratch. */
const MAX_PATCHED_ENTRIES = 32;

/**
 * The previous result with edited entries swapped in, or null when the change is more than an
 * in-place edit (an entry added or removed, an id or path changed, diagnostics involved, or many
 * entries at once). Shadowing depends only on ids, paths and root order, so when none of those
 * moved, each new record takes exactly the place its old one had. A root whose part is the very
 * same array as before (the watch cache hands it again while nothing in its folder changed) is
 * not looked into; only the parts that differ are compared entry by entry.
 */
function patchKind(previous: ShadowedKind, parts: readonly (readonly StampedScan[])[]): ShadowedKind | null {
  if (previous.parts.length !== parts.length) return null;
  const changed: [StampedScan, StampedScan][] = [];
  for (let p = 0; p < parts.length; p += 1) {
    const before = previous.parts[p] as readonly StampedScan[];
    const after = parts[p] as readonly StampedScan[];
    if (before === after) continue;
    if (before.length !== after.length) return null;
    for (let i = 0; i < after.length; i += 1) {
      if (before[i] === after[i]) continue;
      changed.push([before[i] as StampedScan, after[i] as StampedScan]);
      if (changed.length > MAX_PATCHED_ENTRIES) return null;
    }
  }
  // Every entry the very same: the same result, so what was derived from it downstream is kept too.
  if (changed.length === 0) return previous;
  const winners = previous.winners.slice();
  for (const [before, after] of changed) {
    if (before.records.length !== after.records.length || before.diagnostics.length > 0 || after.diagnostics.length > 0) return null;
    for (let j = 0; j < before.records.length; j += 1) {
      const old = before.records[j] as CapabilityRecord;
      const next = after.records[j] as CapabilityRecord;
      if (collisionKey(old.id) !== collisionKey(next.id) || old.path !== next.path) return null;
      const at = findByKey(winners, collisionKey(old.id));
      if (at !== -1 && winners[at] === old) winners[at] = next;
    }
  }
  return { parts, winners, diagnostics: previous.diagnostics };
}

/** Binary search in records ordered by collision key; -1 when absent. */
function findByKey(records: readonly CapabilityRecord[], key: string): number {
  let low = 0;
  let high = records.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const probe = collisionKey((records[middle] as CapabilityRecord).id);
    if (probe === key) return middle;
    if (probe < key) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/**
 * The names directly inside a root, so one readdir answers for every kind folder; null when the
 * root cannot be listed (missing, or refused: {@link checkRoot} reports why at every open).
 */
function readRoot(dir: string): Map<string, fs.Dirent> | null {
  try {
    return new Map(fs.readdirSync(dir, { withFileTypes: true }).map((dirent) => [dirent.name, dirent]));
  } catch {
    return null;
  }
}

/**
 * What is wrong with a root as a whole, checked at every open (a stat and an access check, no
 * listing): a plugin the registry lists whose folder is gone, a root that is not a folder, one the
 * file system will not read (permissions, a link loop). Null when it is fine, and for a missing
 * project or owner root, which simply holds nothing yet.
 */
function checkRoot(root: Root): Diagnostic | null {
  const which = root.plugin === null ? `the ${root.level} root` : `plugin "${root.plugin}"'s folder`;
  let stats: fs.Stats | undefined;
  try {
    stats = fs.statSync(root.dir, { throwIfNoEntry: false });
    if (stats?.isDirectory() === true) fs.accessSync(root.dir, fs.constants.R_OK | fs.constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const reason = code === 'ELOOP' ? 'it is a link in a loop' : code;
    return { code: 'ROOT_UNREADABLE', severity: 'warning', path: root.dir, message: `${which} ${root.dir} cannot be read (${reason}); nothing in it is loaded` };
  }
  if (stats === undefined) {
    if (root.plugin === null) return null;
    return {
      code: 'PLUGIN_FOLDER_MISSING',
      severity: 'warning',
      path: root.dir,
      message: `plugin "${root.plugin}" is installed but its folder ${root.dir} is gone, so it contributes nothing; install it again or run loadout plugins uninstall ${root.plugin}`,
    };
  }
  if (!stats.isDirectory()) {
    return { code: 'ROOT_NOT_A_FOLDER', severity: 'warning', path: root.dir, message: `${which} ${root.dir} is not a folder; nothing in it is loaded` };
  }
  return null;
}

/**
 * Lets file-watcher events already queued by the OS reach the cache before it is trusted: two
 * turns of the event loop guarantee one poll phase in between.
 */
export async function settleWatchers(): Promise<void> {
  await new Promise<void>((done) => setImmediate(done));
  await new Promise<void>((done) => setImmediate(done));
}
