import fs from 'node:fs';
import path from 'node:path';
import { agentsModule } from '@loadout/agents';
import { commandsModule } from '@loadout/commands';
import { Database, dbModule } from '@loadout/db';
import { type CapabilityHolder, CapabilityHolds, contribute, createKernel, loadModules, type Places, resolve } from '@loadout/kernel';
import { testdir, type TreeDescription, writeTree } from '@loadout/files/testing';
import { PluginRegistry, pluginsModule } from '@loadout/plugins';
import { serversModule } from '@loadout/servers';
import { skillsModule } from '@loadout/skills';
import { CapabilityStateStore, stateModule } from '@loadout/state';
import type { DependencyContainer } from 'tsyringe';
import { CapabilityLevels } from '../index.js';
import { levelsModule } from '../levelsModule.js';
import { MoveFileSystem, nodeMoveFileSystem } from '../MoveFileSystem.js';

/** A workspace in a temp folder: the owner's capabilities, two projects, plugins and a data folder. */
export interface LevelsWorkspace {
  readonly places: Places;
  /** A project folder; its `.agents` is its level root. */
  readonly project: string;
  readonly other: string;
}

export interface LevelsWorkspaceDescription {
  readonly capabilities?: TreeDescription;
  readonly project?: TreeDescription;
  readonly other?: TreeDescription;
}

export function levelsWorkspace(description: LevelsWorkspaceDescription = {}): LevelsWorkspace {
  const home = testdir({
    capabilities: description.capabilities ?? {},
    plugins: {},
    project: { '.agents': description.project ?? {} },
    other: { '.agents': description.other ?? {} },
  });
  return {
    places: {
      home,
      capabilitiesDir: path.join(home, 'capabilities'),
      pluginsDir: path.join(home, 'plugins'),
      dataDir: path.join(home, '.loadout'),
    },
    project: path.join(home, 'project'),
    other: path.join(home, 'other'),
  };
}

// The mover is the levels module's later part: loaded first, as the command line does for every
// command but a session, so the containers below are whole.
await loadModules([levelsModule]);

const opened: DependencyContainer[] = [];

/**
 * The app's modules that the mover needs; `files` replaces the real file operations, and `holder`
 * stands for the trust package's rule (which the levels package does not depend on).
 */
export function openLevels(places: Places, files: MoveFileSystem = nodeMoveFileSystem, holder?: CapabilityHolder) {
  const container = createKernel({ places }, [
    dbModule,
    pluginsModule,
    skillsModule,
    serversModule,
    agentsModule,
    commandsModule,
    stateModule,
    levelsModule,
  ]);
  container.register(MoveFileSystem, { useValue: files });
  if (holder !== undefined) contribute(container, CapabilityHolds, holder);
  opened.push(container);
  return { container, levels: resolve(container, CapabilityLevels), state: resolve(container, CapabilityStateStore) };
}

/** Closes every database {@link openLevels} opened. Call it from `afterEach` before removing testdirs. */
export function closeLevels(): void {
  for (const container of opened.splice(0)) {
    if (container.isRegistered(Database, true)) resolve(container, Database).close();
  }
}

/** Installs a plugin the way the plugins package leaves it: its folder and a registry row. */
export function installPlugin(container: DependencyContainer, places: Places, name: string, tree: TreeDescription): void {
  const dir = path.join(places.pluginsDir, name);
  fs.mkdirSync(dir, { recursive: true });
  writeTree(dir, tree);
  resolve(container, PluginRegistry).add({ name, url: `https://example.invalid/${name}.git`, ref: null, commit: '0'.repeat(40) });
}

/** A skill document with the given frontmatter lines (written as given) and body. */
export function skillText(name: string, description = `${name} does one thing.`, body = `Use ${name} when asked.\n`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

/** Every file under `dir` with its bytes, keyed by relative path; null when `dir` is missing. */
export function snapshot(dir: string): Record<string, string> | null {
  if (!fs.existsSync(dir)) return null;
  const files: Record<string, string> = {};
  const walk = (current: string): void => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isSymbolicLink()) files[path.relative(dir, full)] = `link:${fs.readlinkSync(full)}`;
      else if (entry.isDirectory()) walk(full);
      else files[path.relative(dir, full)] = fs.readFileSync(full).toString('base64');
    }
  };
  walk(dir);
  return files;
}

/** An `EXDEV` error, as `rename` throws it across file systems. */
export function exdev(from: string, to: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`EXDEV: cross-device link not permitted, rename '${from}' -> '${to}'`);
  error.code = 'EXDEV';
  return error;
}

/**
 * The real file operations, except that a rename between the project and anything outside it
 * fails with `EXDEV`, as if the project were on another disk.
 */
export function twoDisks(project: string, overrides: Partial<MoveFileSystem> = {}): MoveFileSystem & { renames: string[][] } {
  const renames: string[][] = [];
  const inside = (target: string): boolean => target === project || target.startsWith(`${project}${path.sep}`);
  return {
    ...nodeMoveFileSystem,
    rename: (from, to) => {
      if (inside(from) !== inside(to)) throw exdev(from, to);
      renames.push([from, to]);
      nodeMoveFileSystem.rename(from, to);
    },
    ...overrides,
    renames,
  };
}
