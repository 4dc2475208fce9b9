import path from 'node:path';
import {
  CapabilityHolds,
  type CapabilityHold,
  type CapabilityRecord,
  type Diagnostic,
  type Root,
  resolveAll,
  SessionLoader,
  token,
} from '@loadout/kernel';
import type { DependencyContainer } from 'tsyringe';

/** How many capabilities of one kind a plugin gives a session, and how many of them are held until approved. */
export interface KindCount {
  /** The kind's singular name (`skill`). */
  readonly kind: string;
  /** Its folder name, used as its plural (`skills`). */
  readonly folder: string;
  readonly count: number;
  readonly held: number;
}

/** What a plugin gives a session, and what it has that a session does not get, each diagnostic naming the plugin. */
export interface PluginContents {
  /** Every kind the session knows with at least one of the plugin's capabilities, in the session's kind order. */
  readonly loaded: readonly KindCount[];
  /** One line: `17 skills, 2 commands, 1 server (held)`, or `nothing`. */
  readonly summary: string;
  /** What reading the plugin and its documents reported: parts not loaded and why, warnings. */
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * A plugin folder as read once, where it is installed: what it gives, and the scan behind it, which
 * {@link PluginContentsReader.installed} takes instead of reading the folder a second time.
 */
export interface PluginReading {
  readonly contents: PluginContents;
  readonly dir: string;
  readonly scan: ReturnType<SessionLoader['scanRoots']>;
}

/**
 * Reads what a plugin root gives a session, through the session's own loader and every kind it
 * knows: the same reading `session` and `apply` do, so an install can say what it loaded.
 */
export interface PluginContentsReader {
  /** A root not installed yet (a fresh clone in its staging folder): nothing is held, nothing is decided for it. */
  read(root: Root): PluginContents;
  /** Like {@link read}, keeping the scan: for a root read where it will be installed, whose report follows at once. */
  readToInstall(root: Root): PluginReading;
  /**
   * An installed plugin (enabled or not), with what the session's holders (trust) hold of it now.
   * `earlier`: the reading of its folder the install just made, used when it is of the same folder.
   */
  installed(plugin: string, earlier?: PluginReading): Promise<PluginContents>;
  /** The folder of every kind the session knows (`skills`, `servers` …), for messages. */
  kindFolders(): string[];
}
export const PluginContentsReader = token<PluginContentsReader>('plugins.contentsReader');

/** The {@link PluginContentsReader} of a kernel container: its loader, kinds and holders. */
export class SessionPluginContents implements PluginContentsReader {
  constructor(private readonly container: DependencyContainer) {}

  kindFolders(): string[] {
    return this.container
      .resolve(SessionLoader)
      .kinds()
      .map((kind) => kind.folder);
  }

  read(root: Root): PluginContents {
    return this.readToInstall(root).contents;
  }

  readToInstall(root: Root): PluginReading {
    const loader = this.container.resolve(SessionLoader);
    const scan = loader.scanRoots([root]);
    return { contents: contentsOf(root, loader, scan, new Map()), dir: root.dir, scan };
  }

  async installed(plugin: string, earlier?: PluginReading): Promise<PluginContents> {
    const loader = this.container.resolve(SessionLoader);
    const roots = loader.buildRoots(null, { includeDisabled: true });
    const root = roots.find((candidate) => candidate.plugin === plugin);
    if (root === undefined) return { loaded: [], summary: 'nothing', diagnostics: [] };
    // An install reads its plugin once: the reading that found it loads something serves its report too.
    const scan = earlier !== undefined && earlier.dir === root.dir ? earlier.scan : loader.scanRoots([root]);
    const records = [...scan.records.values()].flat();
    const holds = new Map<CapabilityRecord, CapabilityHold>();
    // Each holder reads what it needs once for the whole plugin, as a session does.
    for (const holder of resolveAll(this.container, CapabilityHolds)) {
      const hold = await holder.forSession({ project: null, roots });
      for (const [record, reason] of hold(records)) if (!holds.has(record)) holds.set(record, reason);
    }
    return contentsOf(root, loader, scan, holds);
  }
}

function contentsOf(
  root: Root,
  loader: SessionLoader,
  scan: ReturnType<SessionLoader['scanRoots']>,
  holds: ReadonlyMap<CapabilityRecord, CapabilityHold>,
): PluginContents {
  const loaded: KindCount[] = [];
  for (const kind of loader.kinds()) {
    const records = scan.records.get(kind.kind) ?? [];
    if (records.length === 0) continue;
    loaded.push({
      kind: kind.kind,
      folder: kind.folder,
      count: records.length,
      held: records.filter((record) => holds.has(record)).length,
    });
  }
  const plugin = root.plugin ?? path.basename(root.dir);
  const diagnostics = [...(root.layout?.diagnostics ?? []), ...scan.diagnostics].map((diagnostic) => namingPlugin(diagnostic, plugin));
  return { loaded, summary: summarizeLoaded(loaded), diagnostics };
}

/** `17 skills, 2 commands, 1 server (held)`: each kind counted, with how many of it wait for approval. */
export function summarizeLoaded(loaded: readonly KindCount[]): string {
  if (loaded.length === 0) return 'nothing';
  return loaded
    .map(({ kind, folder, count, held }) => {
      const counted = `${count} ${count === 1 ? kind : folder}`;
      if (held === 0) return counted;
      return `${counted} (${held === count ? 'held' : `${held} held`})`;
    })
    .join(', ');
}

/** The diagnostic with its plugin named first, unless its message already names it. */
export function namingPlugin(diagnostic: Diagnostic, plugin: string): Diagnostic {
  if (diagnostic.message.includes(`plugin ${plugin}`)) return diagnostic;
  return { ...diagnostic, message: `plugin ${plugin}: ${diagnostic.message}` };
}
