import type { CapabilityKind, CapabilityRecord } from './CapabilityKind.js';
import { type CapabilityHold, withHolds } from './CapabilityHold.js';
import type { Diagnostic } from './Diagnostic.js';
import type { FolderEntry } from '@loadout/files';
import { type RenderedBlock, renderCapabilityBlock } from './renderBlock.js';
import type { Root } from './Root.js';
import type { StampedScan } from './scanKindFolder.js';
import { shadowRecords } from './shadowRecords.js';
import { token } from './token.js';

/** What a source is told of a kind folder: its kind, and the document whose stat tells an entry's edits. */
export interface FolderKind {
  readonly kind: string;
  readonly documentFile?: string;
  readonly documentAlone?: boolean;
}

/** One kind's scans over a session's roots: one part per root, in root order. */
export type KindParts = readonly (readonly StampedScan[])[];

/** One kind's scans with the shadowing rule applied (step 4 of an open). */
export interface ShadowedKind {
  readonly parts: KindParts;
  readonly winners: readonly CapabilityRecord[];
  readonly diagnostics: readonly Diagnostic[];
}

/** Every wanted kind's winners, joined in kind order, and what shadowing had to say. */
export interface ShadowedScan {
  readonly winners: readonly CapabilityRecord[];
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Where a session loader's reads come from, and what it keeps between opens: the one seam between
 * the kernel and any keeping of reads. The kernel's own ({@link DirectScanSource}) reads the disk
 * at every open and keeps nothing, so a hand edit is always seen. A long-running process registers
 * one that keeps what it read and is told of changes (`@loadout/kept-reads`); since records and
 * the lists handed out are never changed once made, it may answer each step with the very result
 * it gave last for the very same inputs. One per loader: what it keeps dies with its kernel.
 */
export interface ScanSource {
  /** Moves whenever anything read may have changed, once {@link validate} ran; null when nothing is kept. */
  readonly generation: number | null;
  /** A number naming this moment, for {@link validate}'s `since`. */
  ticket(): number;
  /** Checks what is kept for `kinds` (every kind when absent) against the disk, unless a check that started after the ticket `since` did. */
  validate(kinds?: ReadonlySet<string>, since?: number): void;
  /** Lets change reports already queued arrive before what is kept is trusted. */
  settle(): Promise<void>;
  /**
   * Step 3 for one folder directly in a root (`name`): every entry's scan, in name order. `list`
   * lists the folder (null when it is missing), `read` reads one entry. Never change what it hands.
   */
  scanFolder(
    rootDir: string,
    name: string,
    list: () => readonly FolderEntry[] | null,
    read: (entry: FolderEntry) => StampedScan,
    of: FolderKind,
  ): readonly StampedScan[];
  /** Told once every folder of an open was scanned, with the open's roots: the source may let go of others. */
  scanned(rootDirs: ReadonlySet<string>): void;
  /** What a session should say about the source (a watch refused, a budget spent). */
  readonly diagnostics: readonly Diagnostic[];
  /** Steps 3 and 4: each kind of `kinds` read over `roots` (by `collect`) and shadowed. */
  shadowed(
    roots: readonly Root[],
    kinds: readonly CapabilityKind[],
    collect: (kinds: readonly CapabilityKind[]) => ReadonlyMap<string, KindParts>,
  ): ShadowedScan;
  /** Step 5's holds put on the records that are on ({@link withHolds}). */
  held(records: readonly CapabilityRecord[], holds: ReadonlyMap<CapabilityRecord, CapabilityHold>): readonly CapabilityRecord[];
  /** The admitted winners per session key, in the order of `kinds` ({@link groupByKey}). */
  grouped(
    winners: readonly CapabilityRecord[],
    kinds: readonly CapabilityKind[],
    kindKeys: ReadonlyMap<string, string>,
  ): Map<string, readonly CapabilityRecord[]>;
  /** Step 6: one kind's block ({@link renderCapabilityBlock}). */
  rendered(title: string, records: readonly CapabilityRecord[], budget: number): RenderedBlock;
  /** Lets go of whatever the source holds open. */
  close(): void;
}
export const ScanSource = token<ScanSource>('kernel.scanSource');

/** The kernel's own source: every step computed afresh from the disk, nothing kept. */
export class DirectScanSource implements ScanSource {
  readonly generation = null;
  readonly diagnostics: readonly Diagnostic[] = [];

  ticket(): number {
    return 0;
  }

  validate(): void {}

  async settle(): Promise<void> {}

  scanFolder(
    _rootDir: string,
    _name: string,
    list: () => readonly FolderEntry[] | null,
    read: (entry: FolderEntry) => StampedScan,
  ): readonly StampedScan[] {
    return (list() ?? []).map(read);
  }

  scanned(): void {}

  shadowed(
    _roots: readonly Root[],
    kinds: readonly CapabilityKind[],
    collect: (kinds: readonly CapabilityKind[]) => ReadonlyMap<string, KindParts>,
  ): ShadowedScan {
    return joinKinds([...collect(kinds).values()].map(shadowKind));
  }

  held(records: readonly CapabilityRecord[], holds: ReadonlyMap<CapabilityRecord, CapabilityHold>): readonly CapabilityRecord[] {
    return withHolds(records, holds);
  }

  grouped(
    winners: readonly CapabilityRecord[],
    kinds: readonly CapabilityKind[],
    kindKeys: ReadonlyMap<string, string>,
  ): Map<string, readonly CapabilityRecord[]> {
    return groupByKey(winners, kinds, kindKeys).byKey;
  }

  rendered(title: string, records: readonly CapabilityRecord[], budget: number): RenderedBlock {
    return renderCapabilityBlock(title, records, budget);
  }

  close(): void {}
}

/** Every record and diagnostic of a kind's parts, in root order. */
export function flattenParts(parts: KindParts): { records: CapabilityRecord[]; diagnostics: Diagnostic[] } {
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

/** One kind's parts shadowed ({@link shadowRecords}): its winners, ordered by collision key. */
export function shadowKind(parts: KindParts): ShadowedKind {
  const flat = flattenParts(parts);
  const shadowing = shadowRecords(flat.records, { pluginsSideBySide: true });
  for (const diagnostic of shadowing.diagnostics) flat.diagnostics.push(diagnostic);
  return { parts, winners: shadowing.winners, diagnostics: flat.diagnostics };
}

/** The kinds' winners and diagnostics joined in kind order: one copy of each list (concat copies whole lists). */
export function joinKinds(from: readonly ShadowedKind[]): ShadowedScan {
  return {
    winners: ([] as CapabilityRecord[]).concat(...from.map((result) => result.winners)),
    diagnostics: ([] as Diagnostic[]).concat(...from.map((result) => result.diagnostics)),
  };
}

/** The winners per session key (every key of `kinds` present), with each winner's index in its key's list. */
export function groupByKey(
  winners: readonly CapabilityRecord[],
  kinds: readonly CapabilityKind[],
  kindKeys: ReadonlyMap<string, string>,
): { readonly byKey: Map<string, CapabilityRecord[]>; readonly places: Uint32Array } {
  const byKey = new Map<string, CapabilityRecord[]>();
  const places = new Uint32Array(winners.length);
  for (const kind of kinds) byKey.set(kind.sessionKey, []);
  for (let i = 0; i < winners.length; i += 1) {
    const record = winners[i] as CapabilityRecord;
    const group = byKey.get(kindKeys.get(record.kind) ?? '');
    if (group !== undefined) places[i] = group.push(record) - 1;
  }
  return { byKey, places };
}
