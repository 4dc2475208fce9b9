import fs from 'node:fs';
import path from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import { CapabilityFilters } from './CapabilityFilter.js';
import { CapabilityKinds, type CapabilityKind, type CapabilityRecord, type EntryScan } from './CapabilityKind.js';
import { collisionKey } from './capabilityId.js';
import type { Diagnostic } from './Diagnostic.js';
import { DocumentRefusedError, realpathInside } from './DocumentReader.js';
import { type FolderEntry, FolderScanCache } from './FolderScanCache.js';
import { InvalidInputError } from './LoadoutError.js';
import { PluginSource } from './PluginSource.js';
import { PROJECT_ROOT_FOLDER, type Root, RootList } from './Root.js';
import { Session } from './Session.js';
import { SessionSections } from './SessionSection.js';
import { Places } from './Places.js';
import { resolve, resolveAll } from './token.js';

export interface OpenSessionOptions {
  /** The folder the agent works in; its `.agents` folder is the project level root. */
  readonly project?: string | null;
}

/** Every capability found in a list of roots, before shadowing and state. */
export interface RootScan {
  /** Per kind (singular name), every record of every root in root order. */
  readonly records: ReadonlyMap<string, readonly CapabilityRecord[]>;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Opens sessions. The root list is built when a session opens — the project's `.agents`, the
 * owner's capabilities repo, then each installed and enabled plugin in install order — so a
 * document written a moment ago is in the next session and a plugin disabled a moment ago is not.
 */
export class SessionLoader {
  constructor(private readonly container: DependencyContainer) {}

  /** Resolves a project folder to the real path its state and roots are keyed by. */
  static resolveProject(project: string): string {
    const absolute = path.resolve(project);
    try {
      const real = fs.realpathSync(absolute);
      if (!fs.statSync(real).isDirectory()) throw new Error('not a folder');
      return real;
    } catch {
      throw new InvalidInputError('PROJECT_NOT_FOUND', `project folder ${project} does not exist`);
    }
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
        roots.push({ dir: plugin.dir, level: 'global', plugin: plugin.name, writable: false });
      }
    }
    return roots;
  }

  /** Opens a session in its own child container. */
  async open(options: OpenSessionOptions = {}): Promise<Session> {
    const project =
      options.project === undefined || options.project === null ? null : SessionLoader.resolveProject(options.project);
    const roots = this.buildRoots(project);
    const cache = this.cache();
    if (cache !== null) await settleWatchers();
    const scan = this.scanRoots(roots);
    const diagnostics: Diagnostic[] = [...scan.diagnostics];
    const filters = resolveAll(this.container, CapabilityFilters);
    const admit = (records: readonly CapabilityRecord[], report?: Diagnostic[]): readonly CapabilityRecord[] => {
      let kept = records;
      for (const filter of filters) {
        const filtered = filter.apply({ project, roots }, kept);
        kept = filtered.records;
        report?.push(...filtered.diagnostics);
      }
      return kept;
    };
    const winners = admit(shadow(scan.records, diagnostics), diagnostics);
    const kinds = this.kinds();
    const byKey = new Map<string, CapabilityRecord[]>();
    const kindKeys = new Map<string, string>();
    for (const kind of kinds) {
      byKey.set(kind.sessionKey, []);
      kindKeys.set(kind.kind, kind.sessionKey);
    }
    for (const record of winners) byKey.get(kindKeys.get(record.kind) ?? '')?.push(record);
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
    for (const section of resolveAll(this.container, SessionSections)) {
      const rendered = section.render(session);
      session.sections.set(section.key, rendered.text);
      diagnostics.push(...rendered.diagnostics);
    }
    return session;
  }

  /** Reads every kind folder of every root. Shadowed records are all kept here. */
  scanRoots(roots: readonly Root[]): RootScan {
    const cache = this.cache();
    const records = new Map<string, CapabilityRecord[]>();
    const diagnostics: Diagnostic[] = [];
    for (const kind of this.kinds()) {
      const ofKind: CapabilityRecord[] = [];
      records.set(kind.kind, ofKind);
      for (const root of roots) {
        const folder = path.join(root.dir, kind.folder);
        const list = (): FolderEntry[] | null => listFolder(root, folder, diagnostics);
        const read = (entry: FolderEntry): EntryScan => readEntry(kind, root, folder, entry);
        const scans = cache === null ? (list() ?? []).map(read) : cache.scan(root.dir, folder, list, read);
        for (const scan of scans) {
          diagnostics.push(...scan.diagnostics);
          for (const draft of scan.records) {
            ofKind.push({ ...draft, kind: kind.kind, level: root.level, plugin: root.plugin } as CapabilityRecord);
          }
        }
      }
    }
    return { records, diagnostics };
  }

  /** The kinds contributed by store packages, in registration order. */
  kinds(): CapabilityKind[] {
    return resolveAll(this.container, CapabilityKinds);
  }

  private cache(): FolderScanCache | null {
    return this.container.isRegistered(FolderScanCache, true)
      ? this.container.resolve(FolderScanCache)
      : null;
  }
}

/**
 * Keeps the first record of each id (case-insensitively), in root order, and reports every record
 * it sets aside, so nothing disappears silently.
 */
function shadow(records: ReadonlyMap<string, readonly CapabilityRecord[]>, diagnostics: Diagnostic[]): CapabilityRecord[] {
  const winners: CapabilityRecord[] = [];
  for (const ofKind of records.values()) {
    const seen = new Map<string, CapabilityRecord>();
    for (const record of ofKind) {
      const key = collisionKey(record.id);
      const winner = seen.get(key);
      if (winner === undefined) {
        seen.set(key, record);
        winners.push(record);
        continue;
      }
      diagnostics.push({
        code: 'SHADOWED',
        severity: 'info',
        path: record.path,
        message: `${record.kind} "${record.id}" from ${sourceName(record)} is shadowed by the one from ${sourceName(winner)}`,
      });
    }
  }
  return winners;
}

function sourceName(record: CapabilityRecord): string {
  if (record.plugin !== null) return `plugin ${record.plugin}`;
  return record.level === 'project' ? 'the project' : "the owner's capabilities";
}

function listFolder(root: Root, folder: string, diagnostics: Diagnostic[]): FolderEntry[] | null {
  let dirents: fs.Dirent[];
  try {
    const stat = fs.lstatSync(folder);
    if (stat.isSymbolicLink() && realpathInside(root.dir, folder) === null) return null;
    dirents = fs.readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    if (error instanceof DocumentRefusedError) {
      diagnostics.push({ code: error.code, severity: 'warning', path: folder, message: error.message });
      return null;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    diagnostics.push({ code: 'FOLDER_UNREADABLE', severity: 'warning', path: folder, message: `${folder}: ${code}` });
    return null;
  }
  const entries: FolderEntry[] = [];
  for (const dirent of dirents) {
    if (dirent.name.startsWith('.')) continue;
    let isDirectory = dirent.isDirectory();
    if (dirent.isSymbolicLink()) {
      try {
        const real = realpathInside(root.dir, path.join(folder, dirent.name));
        if (real === null) continue;
        isDirectory = fs.statSync(real).isDirectory();
      } catch (error) {
        if (!(error instanceof DocumentRefusedError)) throw error;
        diagnostics.push({ code: error.code, severity: 'warning', path: path.join(folder, dirent.name), message: error.message });
        continue;
      }
    }
    entries.push({ name: dirent.name, isDirectory });
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return entries;
}

function readEntry(kind: CapabilityKind, root: Root, folder: string, entry: FolderEntry): EntryScan {
  const entryPath = path.join(folder, entry.name);
  try {
    return kind.readEntry({ root, folder, name: entry.name, path: entryPath, isDirectory: entry.isDirectory });
  } catch (error) {
    if (error instanceof DocumentRefusedError) {
      return { records: [], diagnostics: [{ code: error.code, severity: 'warning', path: entryPath, message: error.message }] };
    }
    const message = error instanceof Error ? error.message : String(error);
    return {
      records: [],
      diagnostics: [{ code: 'DOCUMENT_UNREADABLE', severity: 'warning', path: entryPath, message: `${entryPath}: ${message}` }],
    };
  }
}

/**
 * Lets file-watcher events already queued by the OS reach the cache before it is trusted: two
 * turns of the event loop guarantee one poll phase in between.
 */
async function settleWatchers(): Promise<void> {
  await new Promise<void>((done) => setImmediate(done));
  await new Promise<void>((done) => setImmediate(done));
}
