import path from 'node:path';
import {
  type CapabilityHold,
  type CapabilityKind,
  type CapabilityRecord,
  collisionKey,
  type Diagnostic,
  type FolderKind,
  groupByKey,
  joinKinds,
  type KindParts,
  type RenderedBlock,
  type Root,
  type RootLayout,
  type ScanSource,
  type ShadowedKind,
  type ShadowedScan,
  shadowKind,
  type StampedScan,
} from '@loadout/kernel';
import { type FolderEntry } from '@loadout/files';
import { FolderScanCache, type FolderScanCacheOptions } from './FolderScanCache.js';
import { KeptBlocks } from './KeptBlocks.js';
import { KeptHolds } from './KeptHolds.js';
import { changedPlaces, sameItems } from './sameItems.js';

/**
 * A scan source for a long-running process: folders read through a {@link FolderScanCache} told of
 * changes by file watchers, and every later step of an open kept by the identity of its inputs.
 * Records and the lists handed out are never changed once made (an edit makes a new record), so
 * the same inputs give the same result: a warm open in a quiet workspace does no per-document
 * work, and one edited document is patched into the last results rather than shadowed, grouped
 * and rendered again. Everything here belongs to one loader and goes with its kernel.
 */
export class KeptScanSource implements ScanSource {
  readonly cache: FolderScanCache<StampedScan>;
  private readonly holds = new KeptHolds();
  private readonly blocks = new KeptBlocks();
  /**
   * A number per layout seen, by identity: a plugin source that keeps a layout while its plugin
   * is unchanged hands the same object again, so the roots' key costs no serialization. Layouts
   * are read-only; a new reading is a new object and a new number.
   */
  private readonly layoutIds = new WeakMap<RootLayout, number>();
  private nextLayoutId = 0;
  /** The last roots' shadowed kinds, each with the cache generation it was read under. */
  private memo: { key: string; kinds: Map<string, { readonly shadowed: ShadowedKind; readonly generation: number }> } | null = null;
  /** The last winners handed out, with the per-kind results they were joined from: the same results give the same array. */
  private joined: (ShadowedScan & { readonly from: readonly ShadowedKind[] }) | null = null;
  /** The last admitted winners sorted into session keys. */
  private grouping: Grouped | null = null;
  /** Root → folder name → the folder's path ({@link folderPath}). */
  private readonly folderPaths = new Map<string, Map<string, string>>();

  constructor(options: FolderScanCacheOptions = {}) {
    this.cache = new FolderScanCache<StampedScan>(options);
  }

  get generation(): number {
    return this.cache.generation;
  }

  get diagnostics(): readonly Diagnostic[] {
    return this.cache.diagnostics;
  }

  ticket(): number {
    return this.cache.ticket();
  }

  validate(kinds?: ReadonlySet<string>, since?: number): void {
    this.cache.validate(kinds, since);
  }

  /** Two turns of the event loop: one poll phase in between, so watcher events the OS queued have arrived. */
  async settle(): Promise<void> {
    await new Promise<void>((done) => setImmediate(done));
    await new Promise<void>((done) => setImmediate(done));
  }

  scanFolder(
    rootDir: string,
    name: string,
    list: () => readonly FolderEntry[] | null,
    read: (entry: FolderEntry) => StampedScan,
    of: FolderKind,
  ): readonly StampedScan[] {
    return this.cache.scan(rootDir, this.folderPath(rootDir, name), list, read, of);
  }

  scanned(rootDirs: ReadonlySet<string>): void {
    this.cache.trim(rootDirs);
    this.cache.watchEntries();
  }

  /**
   * The kinds shadowed over `roots`, kept while no watcher fires and no unwatched folder's stamp
   * moved; after a change, a kind whose entries were only edited in place (same ids, same paths)
   * is patched rather than shadowed again from scratch.
   */
  shadowed(
    roots: readonly Root[],
    wanted: readonly CapabilityKind[],
    collect: (kinds: readonly CapabilityKind[]) => ReadonlyMap<string, KindParts>,
  ): ShadowedScan {
    const key = roots
      .map((root) => `${root.level}\0${root.plugin ?? ''}\0${root.dir}\0${root.layout === undefined ? '' : this.layoutId(root.layout)}`)
      .join('\n');
    const generation = this.cache.generation;
    const memo = this.memo !== null && this.memo.key === key ? this.memo : null;
    const shadowed = new Map<string, ShadowedKind>();
    for (const kind of wanted) {
      const kept = memo?.kinds.get(kind.kind);
      if (kept !== undefined && kept.generation === generation) shadowed.set(kind.kind, kept.shadowed);
    }
    const stale = wanted.filter((kind) => !shadowed.has(kind.kind));
    if (stale.length > 0) {
      for (const [kind, parts] of collect(stale)) {
        const previous = memo?.kinds.get(kind)?.shadowed;
        shadowed.set(kind, (previous === undefined ? null : patchKind(previous, parts)) ?? shadowKind(parts));
      }
    }
    // Kept only when nothing changed while it was read; a kind's older scan stays as the base to patch.
    const kept = memo?.kinds ?? new Map<string, { readonly shadowed: ShadowedKind; readonly generation: number }>();
    if (this.cache.generation === generation) for (const [kind, result] of shadowed) kept.set(kind, { shadowed: result, generation });
    this.memo = { key, kinds: kept };
    // The same per-kind results joined again give the same array, so what is derived from it
    // downstream (the state filter, holds, the grouping by kind) can be kept by its identity.
    const from = wanted.map((kind) => shadowed.get(kind.kind) as ShadowedKind);
    if (this.joined !== null && sameItems(this.joined.from, from)) return this.joined;
    this.joined = { from, ...joinKinds(from) };
    return this.joined;
  }

  held(records: readonly CapabilityRecord[], holds: ReadonlyMap<CapabilityRecord, CapabilityHold>): readonly CapabilityRecord[] {
    return this.holds.withHolds(records, holds);
  }

  /**
   * The admitted records per session key. Kept while the filters and holders hand back the very
   * same array for the same kinds, so a warm open does not sort 10,000 records into kinds again.
   * After a few records changed in place (the same length, each new record of the same session
   * key as the one it replaces), each takes its predecessor's place in a copy of its kind's list:
   * sorting keeps order within a kind, so that is exactly where it would have gone.
   */
  grouped(
    winners: readonly CapabilityRecord[],
    kinds: readonly CapabilityKind[],
    kindKeys: ReadonlyMap<string, string>,
  ): Map<string, readonly CapabilityRecord[]> {
    const kept = this.grouping;
    if (kept !== null && kept.winners === winners && sameItems(kept.kinds, kinds)) return new Map(kept.byKey);
    const patched = kept !== null && sameItems(kept.kinds, kinds) ? patchGroups(kept, winners, kindKeys) : null;
    if (kept !== null && patched !== null) {
      this.grouping = { winners, kinds, byKey: patched, places: kept.places };
      return new Map(patched);
    }
    const { byKey, places } = groupByKey(winners, kinds, kindKeys);
    this.grouping = { winners, kinds, byKey, places };
    return new Map(byKey);
  }

  rendered(title: string, records: readonly CapabilityRecord[], budget: number): RenderedBlock {
    return this.blocks.render(title, records, budget);
  }

  close(): void {
    this.cache.close();
    this.memo = null;
    this.joined = null;
    this.grouping = null;
  }

  /**
   * A folder's path, joined once per root and handed again as the very same string: the watch
   * cache finds its folders by path, and a string it was given before is found by identity, where
   * a freshly joined one is hashed and compared character by character (~0.4 ms a session over
   * 101 roots). Forgotten wholesale past {@link MAX_KEPT_FOLDER_ROOTS} roots.
   */
  private folderPath(rootDir: string, name: string): string {
    let byName = this.folderPaths.get(rootDir);
    if (byName === undefined) {
      if (this.folderPaths.size >= MAX_KEPT_FOLDER_ROOTS) this.folderPaths.clear();
      byName = new Map();
      this.folderPaths.set(rootDir, byName);
    }
    let joined = byName.get(name);
    if (joined === undefined) {
      joined = path.join(rootDir, name);
      byName.set(name, joined);
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
}

/** Roots whose folder paths are kept; more (a server asked for many projects) starts afresh. */
const MAX_KEPT_FOLDER_ROOTS = 512;

/** More changed entries than this and a kind is shadowed, or grouped, again from scratch. */
const MAX_PATCHED_ENTRIES = 32;

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
function patchGroups(
  kept: Grouped,
  winners: readonly CapabilityRecord[],
  kindKeys: ReadonlyMap<string, string>,
): Map<string, readonly CapabilityRecord[]> | null {
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

/**
 * The previous result with edited entries swapped in, or null when the change is more than an
 * in-place edit (an entry added or removed, an id or path changed, diagnostics involved, or many
 * entries at once). Shadowing depends only on ids, paths and root order, so when none of those
 * moved, each new record takes exactly the place its old one had. A root whose part is the very
 * same array as before (the watch cache hands it again while nothing in its folder changed) is
 * not looked into; only the parts that differ are compared entry by entry.
 */
function patchKind(previous: ShadowedKind, parts: KindParts): ShadowedKind | null {
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
