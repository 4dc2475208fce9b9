import type { DependencyContainer } from 'tsyringe';
import type { CapabilityRecord } from './CapabilityKind.js';
import { collisionKey, namesRecord } from './capabilityId.js';
import type { Diagnostic } from './Diagnostic.js';
import type { DocumentReads } from './DocumentReads.js';
import type { RenderedBlock } from './renderBlock.js';
import type { RootList } from './Root.js';

/**
 * One agent session's loadout: the roots it reads, the capabilities that are on, the rendered
 * blocks and what the scan had to say. Lives in its own child container; `dispose` releases only
 * what the session made.
 */
export class Session {
  /** The project's real path, or null. */
  readonly project: string | null;
  readonly roots: RootList;
  readonly diagnostics: Diagnostic[];
  /** Rendered blocks by their session key, e.g. `skillsBlock`. */
  readonly sections = new Map<string, string>();
  readonly container: DependencyContainer;
  /**
   * The whole documents the open read and kept, when it was asked to (`keepDocuments`); a reader
   * of them must first show each unchanged since ({@link DocumentReads}).
   */
  readonly documents: DocumentReads | null;
  private readonly recordsByKey: ReadonlyMap<string, readonly CapabilityRecord[]>;
  private readonly kindKeys: ReadonlyMap<string, string>;
  private readonly admit: (records: readonly CapabilityRecord[]) => readonly CapabilityRecord[];
  private readonly render: (title: string, records: readonly CapabilityRecord[], budget: number) => RenderedBlock;

  constructor(parts: {
    project: string | null;
    roots: RootList;
    recordsByKey: ReadonlyMap<string, readonly CapabilityRecord[]>;
    kindKeys: ReadonlyMap<string, string>;
    diagnostics: Diagnostic[];
    container: DependencyContainer;
    admit: (records: readonly CapabilityRecord[]) => readonly CapabilityRecord[];
    render: (title: string, records: readonly CapabilityRecord[], budget: number) => RenderedBlock;
    documents?: DocumentReads;
  }) {
    this.project = parts.project;
    this.roots = parts.roots;
    this.recordsByKey = parts.recordsByKey;
    this.kindKeys = parts.kindKeys;
    this.diagnostics = parts.diagnostics;
    this.container = parts.container;
    this.admit = parts.admit;
    this.render = parts.render;
    this.documents = parts.documents ?? null;
  }

  /**
   * The text a section hands an agent for one kind ({@link renderCapabilityBlock}), rendered by
   * this session's loader: a loader that keeps reads hands the last block again for the very same
   * records.
   */
  renderBlock(title: string, records: readonly CapabilityRecord[], budget: number): RenderedBlock {
    return this.render(title, records, budget);
  }

  /**
   * Whether a record read after the session opened (e.g. by a direct lookup) is on under this
   * session's state. Applies the same filters the session was built with.
   */
  isOn(record: CapabilityRecord): boolean {
    return this.admitted(record) !== undefined;
  }

  /**
   * A record read after the session opened, as this session has it: undefined when it is off,
   * else the record with its hold (`held`) when it runs something not yet trusted.
   */
  admitted<R extends CapabilityRecord>(record: R): R | undefined {
    return this.admit([record])[0] as R | undefined;
  }

  /** The capabilities of one kind (by its singular name, e.g. `skill`) that are on, winners only. */
  recordsOf<R extends CapabilityRecord = CapabilityRecord>(kind: string): readonly R[] {
    const key = this.kindKeys.get(kind);
    return ((key === undefined ? undefined : this.recordsByKey.get(key)) ?? []) as readonly R[];
  }

  /**
   * The capability of `kind` named `id`, if it is on in this session: the first whose id matches
   * case-insensitively (the owner's or the project's before any plugin's, then plugins in install
   * order), else the plugin's one a qualified name (`discord:access`) names.
   */
  find<R extends CapabilityRecord = CapabilityRecord>(kind: string, id: string): R | undefined {
    const wanted = collisionKey(id);
    const records = this.recordsOf<R>(kind);
    return records.find((record) => collisionKey(record.id) === wanted) ?? records.find((record) => namesRecord(id, record));
  }

  /** The shape `loadout session --json` prints and `GET /api/session` answers. */
  toJSON(): Record<string, unknown> {
    // A root's layout may hold a manifest's server definitions, environment values included: never listed.
    const roots = this.roots.map(({ dir, level, plugin, writable }) => ({ dir, level, plugin, writable }));
    const json: Record<string, unknown> = { project: this.project, roots };
    for (const [key, records] of this.recordsByKey) json[key] = records;
    for (const [key, text] of this.sections) json[key] = text;
    json.diagnostics = this.diagnostics;
    return json;
  }

  dispose(): void {
    void this.container.dispose();
  }
}
