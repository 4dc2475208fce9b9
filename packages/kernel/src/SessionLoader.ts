import fs from 'node:fs';
import path from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import { CapabilityFilters } from './CapabilityFilter.js';
import { type CapabilityHold, CapabilityHolds } from './CapabilityHold.js';
import type { SessionScope } from './CapabilityFilter.js';
import { ChangeStamps } from './ChangeStamp.js';
import { CapabilityKinds, type CapabilityKind, type CapabilityRecord } from './CapabilityKind.js';
import type { Diagnostic } from './Diagnostic.js';
import { DocumentReads } from './DocumentReads.js';
import type { FolderEntry } from '@loadout/files';
import { InvalidInputError, trackedFs } from '@loadout/files';
import { PluginSource } from './PluginSource.js';
import { PROJECT_ROOT_FOLDER, type Root, RootList } from './Root.js';
import {
  DirectScanSource,
  flattenParts,
  type KindParts,
  type ScanSource,
  ScanSource as ScanSourceToken,
  type ShadowedScan,
} from './ScanSource.js';
import { Session } from './Session.js';
import { SessionSections } from './SessionSection.js';
import { Places } from './Places.js';
import { folderKindOf, layoutSourcesOf, listKindFolder, readKindFolderEntry, scanRootLayout, type StampedScan } from './scanKindFolder.js';
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
  /**
   * Keep the whole documents the open reads of kinds that hand them over (skills' `SKILL.md`) in
   * the session's {@link Session.documents}, for a caller that reads them next (a runtime plan):
   * each is then read once. Off by default: a session alone needs only their frontmatter.
   */
  readonly keepDocuments?: boolean;
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
  /** The source registered under {@link ScanSourceToken}, or the loader's own direct one; taken at the first open. */
  private scanSource: ScanSource | null = null;

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
      real = trackedFs.realpathSync(absolute);
      if (trackedFs.statSync(real).isDirectory()) return real;
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
        roots.push({
          dir: plugin.dir,
          level: 'global',
          plugin: plugin.name,
          writable: false,
          ...(plugin.layout === undefined ? {} : { layout: plugin.layout }),
        });
      }
    }
    return roots;
  }

  /**
   * A string that stays the same while nothing a session shows can have changed: the source's
   * generation, once what it does not watch was checked, and every {@link ChangeStamps}
   * contribution. Null when the source keeps nothing (a one-shot command reads the disk each
   * time). Let queued change reports arrive first ({@link settle}). With `since` (a {@link ticket}
   * taken when the caller's request arrived), a check that started after it stands for this one:
   * requests waiting together share one stat pass, never one that started before they came.
   */
  changeStamp(since?: number): string | null {
    const source = this.source();
    if (source.generation === null) return null;
    source.validate(undefined, since);
    let stamp = String(source.generation);
    for (const contributed of resolveAll(this.container, ChangeStamps)) stamp += `/${contributed.current()}`;
    return stamp;
  }

  /** Lets change reports already queued reach the source before it is trusted (nothing to wait for without one). */
  settle(): Promise<void> {
    return this.source().settle();
  }

  /** A number naming this moment, for `since` / `checkedSince`: see {@link changeStamp}. */
  ticket(): number {
    return this.source().ticket();
  }

  /** Opens a session in its own child container: the six steps of docs/architecture.md. */
  async open(options: OpenSessionOptions = {}): Promise<Session> {
    // 1. The project's real path.
    const project = options.project === undefined || options.project === null ? null : SessionLoader.resolveProject(options.project);
    // 2. The roots, built now: a plugin disabled a moment ago is not among them.
    const roots = this.buildRoots(project);
    const kinds = this.kinds(options.kinds);
    // 3 and 4. Every kind folder of every root read, and the first root holding an id wins.
    const documents = options.keepDocuments === true ? new DocumentReads() : undefined;
    const scanned = await this.scan(roots, kinds, options.checkedSince, documents);
    const diagnostics = this.rootDiagnostics(roots, scanned);
    // 5. What is off is removed; of what is on, what runs something untrusted is held, never dropped.
    const admit = await this.admission(project, roots);
    const winners = admit(scanned.winners, diagnostics);
    const kindKeys = new Map(this.kinds().map((kind) => [kind.kind, kind.sessionKey]));
    const source = this.source();
    const child = this.container.createChildContainer();
    const session = new Session({
      project,
      roots,
      recordsByKey: new Map(source.grouped(winners, kinds, kindKeys)),
      kindKeys,
      diagnostics,
      container: child,
      admit: (records) => admit(records),
      render: (title, records, budget) => source.rendered(title, records, budget),
      ...(documents === undefined ? {} : { documents }),
    });
    child.register(Session, { useValue: session });
    child.register(RootList, { useValue: roots });
    // 6. Each section's text, within its budget (a session of some kinds renders none).
    for (const section of options.kinds === undefined ? resolveAll(this.container, SessionSections) : []) {
      const rendered = section.render(session);
      session.sections.set(section.key, rendered.text);
      diagnostics.push(...rendered.diagnostics);
    }
    return session;
  }

  /** Steps 3 and 4 through the source: what it keeps is checked first, once queued change reports arrived. */
  private async scan(
    roots: readonly Root[],
    kinds: readonly CapabilityKind[],
    checkedSince: number | undefined,
    documents: DocumentReads | undefined,
  ): Promise<ShadowedScan> {
    const source = this.source();
    await source.settle();
    source.validate(new Set(kinds.map((kind) => kind.kind)), checkedSince);
    return source.shadowed(roots, kinds, (stale) => this.collectScans(roots, stale, this.source(), documents));
  }

  /** What is wrong with each root, what the scan and the source had to say, and what each layout reports. */
  private rootDiagnostics(roots: readonly Root[], scanned: ShadowedScan): Diagnostic[] {
    const diagnostics: Diagnostic[] = [];
    for (const root of roots) {
      const problem = checkRoot(root);
      if (problem !== null) diagnostics.push(problem);
    }
    for (const diagnostic of scanned.diagnostics) diagnostics.push(diagnostic);
    diagnostics.push(...this.source().diagnostics);
    for (const root of roots) if (root.layout !== undefined) diagnostics.push(...root.layout.diagnostics);
    return diagnostics;
  }

  /** Step 5 for one session: every filter, then every holder, each read once for the session's scope. */
  private async admission(
    project: string | null,
    roots: readonly Root[],
  ): Promise<(records: readonly CapabilityRecord[], report?: Diagnostic[]) => readonly CapabilityRecord[]> {
    const filters = await Promise.all(resolveAll(this.container, CapabilityFilters).map((filter) => filter.forSession({ project, roots })));
    const holders = await Promise.all(resolveAll(this.container, CapabilityHolds).map((holder) => holder.forSession({ project, roots })));
    const source = this.source();
    return (records, report) => {
      let kept = records;
      for (const filter of filters) {
        const filtered = filter(kept);
        kept = filtered.records;
        report?.push(...filtered.diagnostics);
      }
      for (const holder of holders) kept = source.held(kept, holder(kept));
      return kept;
    };
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

  /** Reads every kind folder of every root, straight from the disk. Shadowed records are all kept here. */
  scanRoots(roots: readonly Root[], kinds: readonly CapabilityKind[] = this.kinds()): RootScan {
    const records = new Map<string, CapabilityRecord[]>();
    const diagnostics: Diagnostic[] = [];
    for (const [kind, parts] of this.collectScans(roots, kinds, new DirectScanSource())) {
      const flat = flattenParts(parts);
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
      return this.listRecordsOf<R>(session, kind, options);
    } finally {
      session.dispose();
    }
  }

  /**
   * {@link listRecords} from a session the caller already holds open (one that read `kind`): a
   * command that asks about every kind (`why`) opens one session, not one more per kind.
   */
  listRecordsOf<R extends CapabilityRecord = CapabilityRecord>(
    session: Session,
    kind: string,
    options: { includeDisabled?: boolean } = {},
  ): ListedRecord<R>[] {
    const roots = options.includeDisabled === true ? this.buildRoots(session.project, { includeDisabled: true }) : session.roots;
    const records = (this.scanRoots(roots, this.kinds([kind])).records.get(kind) ?? []) as readonly R[];
    const readPlugins = new Set(session.roots.map((root) => root.plugin));
    const { shadowedBy } = shadowRecords(records, { isRead: (record) => readPlugins.has(record.plugin), pluginsSideBySide: true });
    // By path: two plugins' copies of one id are both on (`discord:access`, `telegram:access`).
    const onPaths = new Set(session.recordsOf(kind).map((record) => record.path));
    return records.map((record) => ({
      ...record,
      on: onPaths.has(record.path),
      shadowedBy: shadowedBy.get(record)?.path ?? null,
    }));
  }

  /**
   * Every entry's scan, per kind (singular name): one part per root, in root order, each folder
   * through `source` (which may hand a folder's very same array while nothing in it changed), the
   * whole documents it reads kept in `documents` when given.
   */
  private collectScans(
    roots: readonly Root[],
    kinds: readonly CapabilityKind[],
    source: ScanSource = this.source(),
    documents?: DocumentReads,
  ): Map<string, KindParts> {
    const byKind = new Map<string, KindParts>();
    const rootListings = new Map<string, Map<string, fs.Dirent> | null>();
    const listRoot = (root: Root): Map<string, fs.Dirent> | null => {
      if (!rootListings.has(root.dir)) rootListings.set(root.dir, readRoot(root.dir));
      return rootListings.get(root.dir) ?? null;
    };
    for (const kind of kinds) {
      const parts: (readonly StampedScan[])[] = [];
      byKind.set(kind.kind, parts);
      const of = folderKindOf(kind);
      for (const root of roots) {
        const sources = layoutSourcesOf(kind, root);
        if (sources !== null) {
          parts.push(scanRootLayout(kind, root, sources, source));
          continue;
        }
        const list = (): readonly FolderEntry[] | null => {
          const dirent = listRoot(root)?.get(kind.folder);
          return dirent === undefined ? null : listKindFolder(kind, root, dirent);
        };
        let at: { readonly folder: string; readonly documents?: DocumentReads } | undefined;
        const read = (entry: FolderEntry): StampedScan =>
          readKindFolderEntry(kind, root, entry, (at ??= { folder: path.join(root.dir, kind.folder), documents }));
        parts.push(source.scanFolder(root.dir, kind.folder, list, read, of));
      }
    }
    source.scanned(new Set(roots.map((root) => root.dir)));
    return byKind;
  }

  /** The kinds contributed by store packages, in registration order; only those named (singular names) when `only` is given. */
  kinds(only?: readonly string[]): CapabilityKind[] {
    const all = resolveAll(this.container, CapabilityKinds);
    return only === undefined ? all : all.filter((kind) => only.includes(kind.kind));
  }

  private source(): ScanSource {
    this.scanSource ??= this.container.isRegistered(ScanSourceToken, true)
      ? resolve(this.container, ScanSourceToken)
      : new DirectScanSource();
    return this.scanSource;
  }
}

/**
 * The names directly inside a root, so one readdir answers for every kind folder; null when the
 * root cannot be listed (missing, or refused: {@link checkRoot} reports why at every open).
 */
function readRoot(dir: string): Map<string, fs.Dirent> | null {
  try {
    return new Map(trackedFs.readdirSync(dir, { withFileTypes: true }).map((dirent) => [dirent.name, dirent]));
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
    stats = trackedFs.statSync(root.dir, { throwIfNoEntry: false });
    if (stats?.isDirectory() === true) trackedFs.accessSync(root.dir, fs.constants.R_OK | fs.constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const reason = code === 'ELOOP' ? 'it is a link in a loop' : code;
    return {
      code: 'ROOT_UNREADABLE',
      severity: 'warning',
      path: root.dir,
      message: `${which} ${root.dir} cannot be read (${reason}); nothing in it is loaded`,
    };
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
    return {
      code: 'ROOT_NOT_A_FOLDER',
      severity: 'warning',
      path: root.dir,
      message: `${which} ${root.dir} is not a folder; nothing in it is loaded`,
    };
  }
  return null;
}
