import fs from 'node:fs';
import path from 'node:path';
import { affordancesModule } from '@loadout/affordances';
import { agentsModule } from '@loadout/agents';
import { commandsModule } from '@loadout/commands';
import { Database, dbModule } from '@loadout/db';
import {
  closeKernel,
  createKernel,
  loadModules,
  type Places,
  resolve,
  resolveAll,
  resolvePlaces,
  type Session,
  SessionLoader,
} from '@loadout/kernel';
import { hooksModule } from '@loadout/hooks';
import { git, gitRepo, skillMarkdown } from '@loadout/kernel/testing';
import { testdir } from '@loadout/files/testing';
import { notificationsModule } from '@loadout/notifications';
import { serversModule } from '@loadout/servers';
import { skillsModule } from '@loadout/skills';
import { tasksModule } from '@loadout/tasks';
import type { DependencyContainer } from 'tsyringe';
import { PluginManager, PluginRegistry, pluginsModule } from '../src/index.js';
import { type PluginLifecycleListener, PluginLifecycleListeners } from '../src/PluginLifecycleListener.js';
import { GitPluginManagerParts } from '../src/PluginManager.js';
import { gitHome } from '../src/testing/index.js';

import type { SessionJson } from '../src/testing/pluginFixtures.js';

// The modules' later parts (the managers and services) loaded first, as the command line does for
// every command but a session: the containers made here are whole.
await loadModules([pluginsModule]);

const kernels: DependencyContainer[] = [];

/** Closes every workspace's database and watchers; call it from `afterEach` before removing test folders. */
export function closeWorkspaces(): void {
  for (const container of kernels.splice(0)) {
    resolve(container, Database).close();
    closeKernel(container);
  }
}

export interface Workspace {
  readonly work: string;
  readonly places: Places;
  readonly container: DependencyContainer;
  readonly manager: PluginManager;
  readonly registry: PluginRegistry;
  /** The HOME git runs with; its `.gitconfig` is the "user's" git config. */
  readonly gitHomeDir: string;
}

export interface WorkspaceOptions {
  readonly gitConfig?: Record<string, Record<string, string>>;
  readonly env?: Record<string, string>;
  readonly listeners?: PluginLifecycleListener[];
  /** Another workspace's owner folder to use instead of a fresh one (a second machine with the same fork). */
  readonly capabilitiesDir?: string;
}

/** A LOADOUT_HOME in a temp folder with every kind, the plugins package and an owner repository in git. */
export function workspace(options: WorkspaceOptions = {}): Workspace {
  const work = testdir();
  const home = path.join(work, 'home');
  const places = resolvePlaces(options.capabilitiesDir === undefined ? {} : { LOADOUT_CAPABILITIES_DIR: options.capabilitiesDir }, home);
  if (options.capabilitiesDir === undefined) {
    gitRepo(places.capabilitiesDir, {
      skills: { 'own-skill': { 'SKILL.md': skillMarkdown({ name: 'own-skill', description: "The owner's skill" }) } },
    });
  }
  const gitHomeDir = gitHome(path.join(work, 'git-home'), options.gitConfig ?? { user: { name: 'Someone' } });
  const container = createKernel({ places }, [
    dbModule,
    pluginsModule,
    skillsModule,
    affordancesModule,
    notificationsModule,
    serversModule,
    agentsModule,
    commandsModule,
    hooksModule,
    tasksModule,
  ]);
  kernels.push(container);
  for (const listener of options.listeners ?? []) container.register(PluginLifecycleListeners, { useValue: listener });
  container.register(GitPluginManagerParts, {
    useValue: {
      listeners: () => resolveAll(container, PluginLifecycleListeners),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: gitHomeDir, ...options.env },
      cwd: () => work,
      gitTimeoutMs: 30_000,
    },
  });
  return { work, places, container, manager: resolve(container, PluginManager), registry: resolve(container, PluginRegistry), gitHomeDir };
}

/** Opens a session and returns it as `loadout session --json` prints it. */
export async function session(ws: Workspace): Promise<SessionJson> {
  const opened = await ws.container.resolve(SessionLoader).open();
  const json = JSON.parse(JSON.stringify(opened.toJSON())) as SessionJson;
  opened.dispose();
  return json;
}

/** Runs `look` on an open session (for what a session holds but never lists), then closes it. */
export async function withSession<T>(ws: Workspace, look: (session: Session) => T): Promise<T> {
  const opened = await ws.container.resolve(SessionLoader).open();
  try {
    return look(opened);
  } finally {
    opened.dispose();
  }
}

export const head = (dir: string): string => git(dir, 'rev-parse', 'HEAD').trim();

export const pluginFolders = (ws: Workspace): string[] =>
  fs.existsSync(ws.places.pluginsDir) ? fs.readdirSync(ws.places.pluginsDir).sort() : [];
