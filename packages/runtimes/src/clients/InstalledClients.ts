import { execFileSync as untrackedExecFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isJsonObject } from '@loadout/kernel';
import { PRIVATE_FILE_MODE, spoilsReads, trackedFs, writeFileAtomicSync } from '@loadout/files';
import { readCacheFile } from '../BundleStampCache.js';
import type { ClientVersionFacts, RuntimeAdapter } from '../RuntimeAdapter.js';
import { factsForVersion, versionIn } from './ClientVersions.js';

/** Starts a process; a ReadLog cannot follow what it reads, so it spoils the current one. */
const execFileSync = spoilsReads('a child process', untrackedExecFileSync);

/** Where the versions of the clients found on this machine are kept, inside the data folder. */
export const CLIENT_VERSIONS_FILE = path.join('runtimes', 'client-versions.json');

/** How long a client may take to say its version before Loadout plans without it. */
const VERSION_TIMEOUT_MS = 10_000;

/** The client a runtime's plan was made against. */
export interface InstalledClient {
  /** The executable found on `PATH`, as found. */
  readonly binary: string;
  /** What `--version` said; null when it said nothing Loadout could read. */
  readonly version: string | null;
  /** The measured version whose facts the plan used. */
  readonly plannedAs: string | null;
}

/** One kept answer: the executable's real path, size and modification time, and its version. */
interface KeptVersion {
  readonly size: number;
  readonly mtimeMs: number;
  readonly version: string | null;
}

/**
 * Finds each client on `PATH` and asks it `--version`, once per executable: the answer is kept in
 * the data folder under the executable's real path, size and modification time, so an apply asks
 * again only after the client was installed, updated or moved (a few hundred milliseconds each
 * time otherwise). A damaged cache file only costs the questions it would have saved.
 */
export class InstalledClients {
  private readonly kept: Map<string, KeptVersion>;
  private changed = false;

  constructor(
    private readonly dataDir: string | null,
    private readonly variables: Readonly<Record<string, string | undefined>>,
  ) {
    this.kept = dataDir === null ? new Map() : keptVersions(readCacheFile(path.join(dataDir, CLIENT_VERSIONS_FILE)));
  }

  /** The executable `command` names on `PATH`; null when there is none. */
  find(command: string): string | null {
    for (const folder of (this.variables.PATH ?? '').split(path.delimiter)) {
      if (folder === '' || !path.isAbsolute(folder)) continue;
      const candidate = path.join(folder, command);
      try {
        trackedFs.accessSync(candidate, fs.constants.X_OK);
        if (trackedFs.statSync(candidate).isFile()) return candidate;
      } catch {
        // Not here: the next folder.
      }
    }
    return null;
  }

  /** The installed version of `command`; null when it is not on `PATH`. */
  installed(command: string): { binary: string; version: string | null } | null {
    const binary = this.find(command);
    if (binary === null) return null;
    let real: string;
    let stat: fs.Stats;
    try {
      real = trackedFs.realpathSync(binary);
      stat = trackedFs.statSync(real);
    } catch {
      return null;
    }
    const kept = this.kept.get(real);
    if (kept !== undefined && kept.size === stat.size && kept.mtimeMs === stat.mtimeMs) return { binary, version: kept.version };
    const version = this.ask(binary);
    this.kept.set(real, { size: stat.size, mtimeMs: stat.mtimeMs, version });
    this.changed = true;
    return { binary, version };
  }

  /**
   * The adapter as the installed client behaves: its compiled-in names and same-name rule for
   * that version, and the client it was planned against. An adapter without measured versions,
   * or whose client is not installed, is returned as it is.
   */
  resolve(adapter: RuntimeAdapter): { adapter: RuntimeAdapter; client: InstalledClient | null } {
    if (adapter.client === undefined) return { adapter, client: null };
    const installed = this.installed(adapter.client.command);
    if (installed === null) return { adapter, client: null };
    const facts: ClientVersionFacts | null = installed.version === null ? null : factsForVersion(adapter.client, installed.version);
    if (facts === null) return { adapter, client: { ...installed, plannedAs: null } };
    return {
      adapter: {
        ...adapter,
        sameName: facts.sameName,
        pluginSkillNames: facts.pluginSkillNames,
        ...(facts.copiedAgentNames === undefined ? {} : { copiedAgentNames: facts.copiedAgentNames }),
        compiledIn:
          facts.compiledIn === undefined ? adapter.compiledIn : { ...facts.compiledIn, replacedBySkills: facts.skillReplacesBuiltIn },
      },
      client: { ...installed, plannedAs: facts.version },
    };
  }

  /** Writes the answers learned when there are new ones. */
  save(): void {
    if (this.dataDir === null || !this.changed) return;
    const clients = Object.fromEntries([...this.kept].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    writeFileAtomicSync(path.join(this.dataDir, CLIENT_VERSIONS_FILE), `${JSON.stringify({ version: 1, clients })}\n`, {
      mode: PRIVATE_FILE_MODE,
    });
    this.changed = false;
  }

  /** `<binary> --version`'s first `N.N.N`; null when it fails, is slow or says none. */
  private ask(binary: string): string | null {
    try {
      const output = execFileSync(binary, ['--version'], {
        env: { ...this.variables, DISABLE_AUTOUPDATER: '1' },
        encoding: 'utf8',
        timeout: VERSION_TIMEOUT_MS,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      return versionIn(output);
    } catch {
      return null;
    }
  }
}

/** The kept answers of a cache file's JSON; none when anything in it is off. */
function keptVersions(raw: unknown): Map<string, KeptVersion> {
  const kept = new Map<string, KeptVersion>();
  if (!isJsonObject(raw) || raw.version !== 1 || !isJsonObject(raw.clients)) return kept;
  for (const [binary, entry] of Object.entries(raw.clients)) {
    if (
      !path.isAbsolute(binary) ||
      !isJsonObject(entry) ||
      typeof entry.size !== 'number' ||
      typeof entry.mtimeMs !== 'number' ||
      !(entry.version === null || (typeof entry.version === 'string' && versionIn(entry.version) === entry.version))
    )
      return new Map();
    kept.set(binary, { size: entry.size, mtimeMs: entry.mtimeMs, version: entry.version });
  }
  return kept;
}
