import type { Diagnostic } from './Diagnostic.js';
import type { Level, Root } from './Root.js';
import { token } from './token.js';

/** What every capability in a session carries, whatever its kind. */
export interface CapabilityRecord {
  /** The kind's singular name, e.g. `skill`; state keys read `<kind>/<id>`. */
  readonly kind: string;
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly level: Level;
  /** The plugin that provides it, or null for the owner's own. */
  readonly plugin: string | null;
  /** Absolute path of the document (the `SKILL.md` of a folder skill). */
  readonly path: string;
  /** Gates the document declares, with their declared defaults. */
  readonly gates: Readonly<Record<string, boolean>>;
}

/** What a kind reads from one entry; the loader adds `kind`, `level` and `plugin` from the root. */
export type DraftRecord<R extends CapabilityRecord = CapabilityRecord> = Omit<R, 'kind' | 'level' | 'plugin'>;

/** One name directly inside a root's kind folder (`skills/pdf`, `servers/github.json`). */
export interface KindFolderEntry {
  readonly root: Root;
  /** Absolute path of the kind folder. */
  readonly folder: string;
  readonly name: string;
  /** Absolute path of the entry. */
  readonly path: string;
  readonly isDirectory: boolean;
}

export interface EntryScan<R extends CapabilityRecord = CapabilityRecord> {
  readonly records: readonly DraftRecord<R>[];
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * A kind of capability, contributed by its store package. The kernel lists each root's kind folder
 * and hands every entry to `readEntry`; it merges the roots, applies state and builds the session.
 *
 * @example
 * container.register(CapabilityKinds, { useValue: {
 *   kind: 'affordance', folder: 'affordances', sessionKey: 'affordances',
 *   readEntry: (entry) => readAffordance(entry),
 * } });
 */
export interface CapabilityKind<R extends CapabilityRecord = CapabilityRecord> {
  readonly kind: string;
  /** The folder under each root, e.g. `skills`. */
  readonly folder: string;
  /** The key under which the session lists this kind, e.g. `skills`. */
  readonly sessionKey: string;
  /**
   * Reads one entry. Throwing a `DocumentRefusedError` turns into a diagnostic for that entry;
   * the scan goes on. Must not read outside `entry.root.dir`.
   */
  readEntry(entry: KindFolderEntry): EntryScan<R>;
}
export const CapabilityKinds = token<CapabilityKind>('kernel.capabilityKinds');
