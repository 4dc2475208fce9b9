import fs from 'node:fs';
import path from 'node:path';
import { affordancesModule } from '@loadout/affordances';
import { Database, dbModule } from '@loadout/db';
import { createKernel, loadModules, type Places, resolve } from '@loadout/kernel';
import { testdir, type TreeDescription, writeTree } from '@loadout/files/testing';
import { PluginRegistry, pluginsModule } from '@loadout/plugins';
import { skillsModule } from '@loadout/skills';
import { tasksModule } from '@loadout/tasks';
import type { DependencyContainer } from 'tsyringe';

import { stateModule } from '../index.js';

// The modules' later parts (the managers and services) loaded first, as the command line does for
// every command but a session: the containers made here are whole.
await loadModules([pluginsModule, stateModule]);

/** A workspace in a temp folder: the owner's capabilities, one project, plugins, a data folder. */
export interface Workspace {
  readonly places: Places;
  /** The project folder (its `.agents` is the project root). */
  readonly project: string;
}

export interface WorkspaceDescription {
  readonly capabilities?: TreeDescription;
  readonly project?: TreeDescription;
}

/** Makes a workspace under a fresh testdir. */
export function workspace(description: WorkspaceDescription = {}): Workspace {
  const home = testdir({ capabilities: description.capabilities ?? {}, plugins: {}, project: { '.agents': description.project ?? {} } });
  return {
    places: {
      home,
      capabilitiesDir: path.join(home, 'capabilities'),
      pluginsDir: path.join(home, 'plugins'),
      dataDir: path.join(home, '.loadout'),
    },
    project: path.join(home, 'project'),
  };
}

const opened: DependencyContainer[] = [];

/** A root container for the workspace with the stores, plugins and state; closed by {@link closeContainers}. */
export function openContainer(places: Places): DependencyContainer {
  const container = createKernel({ places }, [dbModule, pluginsModule, skillsModule, affordancesModule, tasksModule, stateModule]);
  opened.push(container);
  return container;
}

/** Closes every database opened by {@link openContainer}. Call it from `afterEach`, before removing testdirs. */
export function closeContainers(): void {
  for (const container of opened.splice(0)) {
    if (container.isRegistered(Database, true)) resolve(container, Database).close();
  }
}

/** Installs a plugin the way the plugins package leaves it: a folder under `plugins/` and a registry row. */
export function installPlugin(container: DependencyContainer, places: Places, name: string, tree: TreeDescription, enabled = true): void {
  const dir = path.join(places.pluginsDir, name);
  fs.mkdirSync(dir, { recursive: true });
  writeTree(dir, tree);
  const registry = resolve(container, PluginRegistry);
  registry.add({ name, url: `https://example.invalid/${name}.git`, ref: null, commit: '0'.repeat(40) });
  if (!enabled) registry.setEnabled(name, false);
}

/** A Markdown capability document with optional gates. */
export function capabilityMarkdown(name: string, gates: Record<string, boolean> = {}, description = `${name} does one thing.`): string {
  const gateLines = Object.entries(gates).map(([gate, value]) => `  ${gate}: ${value ? 'on' : 'off'}`);
  return `---\nname: ${name}\ndescription: ${description}\n${gateLines.length === 0 ? '' : `gates:\n${gateLines.join('\n')}\n`}---\nUse ${name} when asked.\n`;
}

/** A skill folder holding a SKILL.md. */
export function skillFolder(name: string, gates: Record<string, boolean> = {}): TreeDescription {
  return { 'SKILL.md': capabilityMarkdown(name, gates) };
}

/** A task folder with its implementation. */
export function taskFolder(name: string): TreeDescription {
  return {
    'TASK.md': `---\nname: ${name}\ndescription: ${name} task\nimplementation: run.mjs\n---\n`,
    'run.mjs': 'console.log("ran");\n',
  };
}
