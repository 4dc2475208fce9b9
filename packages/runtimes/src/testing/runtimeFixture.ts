import fs from 'node:fs';
import path from 'node:path';
import { agentsModule } from '@loadout/agents';
import { commandsModule } from '@loadout/commands';
import { Database, dbModule } from '@loadout/db';
import { hooksModule } from '@loadout/hooks';
import { createKernel, loadModules, type Places, resolve, type Session, SessionLoader } from '@loadout/kernel';
import { gitRepo } from '@loadout/kernel/testing';
import { testdir, type TreeDescription, writeTree } from '@loadout/files/testing';
import { PluginRegistry, pluginsModule } from '@loadout/plugins';
import { serversModule } from '@loadout/servers';
import { skillsModule } from '@loadout/skills';
import { stateModule } from '@loadout/state';
import type { DependencyContainer } from 'tsyringe';
import { type ApplyResult, runtimeRoutes, runtimesModule } from '../index.js';
import { KNOWN_ADAPTERS } from '../runtimesModule.js';

import { type RuntimeEnvironment, RuntimeEnvironment as RuntimeEnvironmentToken, runtimeEnvironmentFrom } from '../RuntimeEnvironment.js';

// The modules' later parts (the managers and services) loaded first, as the command line does for
// every command but a session: the containers made here are whole.
await loadModules([pluginsModule, stateModule]);

/**
 * A machine in a temp folder: a home folder (standing in for `~`, with the runtimes' folders under
 * it), a Loadout workspace (capabilities, plugins, data) and one project inside a git repository.
 */
export interface Machine {
  readonly base: string;
  /** The stand-in for `HOME`. */
  readonly home: string;
  readonly places: Places;
  /** The repository root that holds the project. */
  readonly repo: string;
  /** The project folder, `<repo>/packages/app`, so it has a repository ancestor. */
  readonly project: string;
  /** The environment the runtimes see: HOME, CLAUDE_CONFIG_DIR, CODEX_HOME in the temp folder. */
  readonly env: Record<string, string>;
  readonly runtimeEnv: RuntimeEnvironment;
}

export interface MachineDescription {
  /** The owner's capabilities repo. */
  readonly capabilities?: TreeDescription;
  /** The project's `.agents` folder. */
  readonly project?: TreeDescription;
  /** Files under the home folder, e.g. `{ '.claude': { skills: {...} } }`. */
  readonly home?: TreeDescription;
  /** Files at the repository root (beside `packages/app`). */
  readonly repo?: TreeDescription;
  /** Files in the stand-in for the machine-wide folders: `etc-codex`, `etc-claude-code`. */
  readonly machineWide?: TreeDescription;
  /** Set CLAUDE_CONFIG_DIR / CODEX_HOME to folders outside `~/.claude` / `~/.codex`. */
  readonly relocated?: boolean;
  /**
   * The runtimes installed on the machine: their home folders are made, so an apply that names no
   * runtime finds them. Default: every known runtime; `[]` is a machine with none (only what `home` holds).
   */
  readonly installed?: readonly string[];
  /**
   * Client commands on `PATH`, each a stand-in that answers `--version` with the line given, e.g.
   * `{ claude: '2.1.332 (Claude Code)' }`: the plan then treats that version as installed.
   */
  readonly clients?: Readonly<Record<string, string>>;
}

export function machine(description: MachineDescription = {}): Machine {
  const base = testdir({});
  const home = path.join(base, 'home');
  const loadoutHome = path.join(base, 'loadout');
  const places: Places = {
    home: loadoutHome,
    capabilitiesDir: path.join(loadoutHome, 'capabilities'),
    pluginsDir: path.join(loadoutHome, 'plugins'),
    dataDir: path.join(loadoutHome, '.loadout'),
  };
  fs.mkdirSync(places.pluginsDir, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  writeTree(home, description.home ?? {});
  writeTree(base, description.machineWide ?? {});
  gitRepo(places.capabilitiesDir, description.capabilities ?? {});
  const repo = path.join(home, 'work', 'repo');
  gitRepo(repo, { ...(description.repo ?? {}), packages: { app: { '.agents': description.project ?? {}, 'README.md': 'app\n' } } });
  const env: Record<string, string> = {
    HOME: home,
    CLAUDE_CONFIG_DIR: description.relocated === true ? path.join(base, 'claude-config') : path.join(home, '.claude'),
    CODEX_HOME: description.relocated === true ? path.join(base, 'codex-home') : path.join(home, '.codex'),
    LOADOUT_CODEX_SYSTEM_DIR: path.join(base, 'etc-codex'),
    LOADOUT_CLAUDE_MANAGED_DIR: path.join(base, 'etc-claude-code'),
  };
  if (description.clients !== undefined) {
    const bin = path.join(base, 'bin');
    fs.mkdirSync(bin, { recursive: true });
    for (const [command, said] of Object.entries(description.clients)) {
      fs.writeFileSync(path.join(bin, command), `#!/bin/sh\necho ${JSON.stringify(said)}\n`, { mode: 0o755 });
    }
    env.PATH = bin;
  }
  const runtimeEnv = runtimeEnvironmentFrom(env);
  const installed = description.installed ?? KNOWN_ADAPTERS.map((adapter) => adapter.name);
  for (const adapter of KNOWN_ADAPTERS) {
    if (!installed.includes(adapter.name)) continue;
    for (const folder of adapter.presence?.(runtimeEnv).homes ?? []) fs.mkdirSync(folder, { recursive: true });
  }
  return { base, home, places, repo, project: path.join(repo, 'packages', 'app'), env, runtimeEnv };
}

const opened: DependencyContainer[] = [];

/** The root container a `loadout` process would build, with the runtimes' environment in the temp folder. */
export function openLoadout(m: Machine): DependencyContainer {
  const container = createKernel({ places: m.places }, [
    dbModule,
    pluginsModule,
    skillsModule,
    serversModule,
    agentsModule,
    commandsModule,
    hooksModule,
    stateModule,
    { name: 'runtimes', now: runtimesModule, routes: async () => runtimeRoutes },
  ]);
  container.register(RuntimeEnvironmentToken, { useValue: m.runtimeEnv });
  opened.push(container);
  return container;
}

/** Closes every database {@link openLoadout} opened. Call from `afterEach` before removing the testdirs. */
export function closeLoadouts(): void {
  for (const container of opened.splice(0)) {
    if (container.isRegistered(Database, true)) resolve(container, Database).close();
  }
}

/** Opens a session, the way a command does. */
export function openSession(container: DependencyContainer, project: string | null): Promise<Session> {
  return container.resolve(SessionLoader).open({ project });
}

/** Installs a plugin as the plugins package leaves it: a clone folder and a registry row. */
export function installPlugin(container: DependencyContainer, m: Machine, name: string, tree: TreeDescription): void {
  gitRepo(path.join(m.places.pluginsDir, name), tree);
  resolve(container, PluginRegistry).add({ name, url: `https://example.invalid/${name}.git`, ref: null, commit: '0'.repeat(40) });
}

/** A SKILL.md with a name, a description and a body. */
export function skill(name: string, body = `Use ${name} when asked.\n`): string {
  return `---\nname: ${name}\ndescription: ${name} does one thing well.\n---\n${body}`;
}

/** Every file under `dir` with its bytes and mode, for byte-identical comparisons. */
export function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (current: string): void => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      const relative = path.relative(dir, full);
      if (entry.isSymbolicLink()) files[relative] = `link:${fs.readlinkSync(full)}`;
      else if (entry.isDirectory()) {
        files[`${relative}/`] = 'dir';
        walk(full);
      } else files[relative] = `${(fs.statSync(full).mode & 0o777).toString(8)}:${fs.readFileSync(full).toString('base64')}`;
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return files;
}

/** A server document, `servers/<id>.json`. */
export function serverDocument(definition: Readonly<Record<string, unknown>>): string {
  return `${JSON.stringify({ name: 'A server', ...definition }, null, 2)}\n`;
}

/** Reads a file under the home folder. */
export function readHome(m: Machine, relative: string): string {
  return fs.readFileSync(path.join(m.home, relative), 'utf8');
}

/** Every file of the machine but the database (opening it alone changes it), for "nothing was written" checks. */
export function snapshotWithoutDatabase(m: Machine): Record<string, string> {
  return Object.fromEntries(Object.entries(snapshot(m.base)).filter(([file]) => !/loadout\.db/.test(file)));
}

/** One runtime's part of an apply's result; throws when the plan has none. */
export function runtimePart(result: ApplyResult, runtime: string): ApplyResult['runtimes'][number] {
  const found = result.runtimes.find((candidate) => candidate.runtime === runtime);
  if (found === undefined) throw new Error(`no ${runtime} in the plan`);
  return found;
}
