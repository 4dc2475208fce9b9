import type { CapabilityHold } from './CapabilityHold.js';
import type { Diagnostic } from './Diagnostic.js';
import type { DocumentReads } from './DocumentReads.js';
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
  /** Set when the capability runs something its owner has not trusted yet: listed, never run. */
  readonly held?: CapabilityHold;
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
  /**
   * The document's parsed content when its root declares it inline (a plugin manifest's MCP
   * server) instead of as a file of its own; `path` is then the declaring file. Only a kind that
   * reads JSON documents gets one.
   */
  readonly content?: unknown;
  /**
   * Where the open that reads it keeps whole documents, when it was asked to
   * ({@link DocumentReads}): a kind whose documents a later step reads whole (skills) hands it its reads.
   */
  readonly documents?: DocumentReads;
}

/**
 * What a runnable capability would run, as its kind reads it: what approval fingerprints, what a
 * diff of an update is limited to and what an audit looks at.
 */
export interface RunnableParts {
  /** Absolute paths of the files whose bytes run (inside the record's root). */
  readonly files: readonly string[];
  /** Absolute paths of the files and folders that declare what runs, for a diff limited to them. */
  readonly sources: readonly string[];
  /** The data that decides what runs (a server's command line, a task's implementation name); text fields left out. */
  readonly definition: unknown;
  /** One line for people: the command line, or the file that runs. */
  readonly summary: string;
}

export interface EntryScan<R extends CapabilityRecord = CapabilityRecord> {
  readonly records: readonly DraftRecord<R>[];
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * How a kind's documents are laid out and named: what the kernel computes ids from
 * ({@link capabilityId}), and all a mover needs to know to plan a landing and rewrite a name
 * without knowing the kind.
 */
export interface KindDocument {
  /**
   * The document inside a folder entry, e.g. `SKILL.md` in `skills/<dir>/SKILL.md`; a folder entry
   * is named by its folder. Absent when every entry is a single file.
   */
  readonly file?: string;
  /**
   * True when a folder entry's record is read from its `file` alone, nothing else in the folder
   * (a skill's resources beside its `SKILL.md` are not part of its record; a task's runnable parts
   * are). An entry the watch cache cannot watch is then checked by one stat of its document, not
   * of its folder as well.
   */
  readonly recordFromFileAlone?: boolean;
  /**
   * How the id is made. `name`: the slug of the display name as written, else of the entry's stem,
   * else a hash of the path. `entry`: the entry's stem as it is (a folder's name, a file's name
   * without its extension), whatever the display name.
   */
  readonly idRule: 'name' | 'entry';
  /**
   * Where the display name is written: the frontmatter `name:` line of a Markdown document, or the
   * top-level `"name"` string of a JSON one.
   */
  readonly nameField: 'frontmatter' | 'json';
}

/**
 * A kind of capability, contributed by its store package. The kernel lists each root's kind folder
 * and hands every entry to `readEntry`; it merges the roots, applies state and builds the session.
 *
 * @example
 * container.register(CapabilityKinds, { useValue: {
 *   kind: 'affordance', folder: 'affordances', sessionKey: 'affordances',
 *   document: { idRule: 'name', nameField: 'frontmatter' },
 *   readEntry: (entry) => readAffordance(entry),
 * } });
 */
export interface CapabilityKind<R extends CapabilityRecord = CapabilityRecord> {
  readonly kind: string;
  /** The folder under each root, e.g. `skills`. */
  readonly folder: string;
  /** The key under which the session lists this kind, e.g. `skills`. */
  readonly sessionKey: string;
  /** How its documents are laid out and named. */
  readonly document: KindDocument;
  /**
   * Reads one entry. Throwing a `DocumentRefusedError` turns into a diagnostic for that entry;
   * the scan goes on. Must not read outside `entry.root.dir`.
   */
  readEntry(entry: KindFolderEntry): EntryScan<R>;
  /**
   * For a kind whose capabilities run something (tasks, MCP servers, skills with scripts or tool
   * grants): what one record runs, or null when this one runs nothing (a skill of text). A kind
   * without it is text only, and its capabilities are never held.
   */
  runnable?(record: R, root: Root): RunnableParts | null;
  /**
   * For a kind of which only some records run something: whether this one may, from the record
   * alone. Asked of every record of every session, so it reads nothing; `runnable` then says for
   * certain. Absent: every record of a kind with `runnable` may run something.
   */
  mayRun?(record: R): boolean;
}
export const CapabilityKinds = token<CapabilityKind>('kernel.capabilityKinds');
