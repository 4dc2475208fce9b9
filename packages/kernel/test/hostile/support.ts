import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import {
  type CapabilityKind,
  CapabilityKinds,
  contribute,
  createKernel,
  type InstalledPlugin,
  PluginSource,
  readMarkdownCapability,
  resolvePlaces,
  SessionLoader,
} from '../../src/index.js';
import { testdir, type TreeDescription } from '@loadout/files/testing';

/**
 * What the hostile kernel tests share: a minimal kind, a workspace with a project, the owner's
 * root and plugins, and FIFOs that cannot hang a test run.
 */

/** Every `notes/<file>.md`, and `notes/<folder>/NOTE.md`. */
export const noteKind: CapabilityKind = {
  kind: 'note',
  folder: 'notes',
  sessionKey: 'notes',
  document: { file: 'NOTE.md', idRule: 'name', nameField: 'frontmatter' },
  readEntry: (entry) => {
    if (!entry.isDirectory && !entry.name.endsWith('.md')) return { records: [], diagnostics: [] };
    const file = entry.isDirectory ? path.join(entry.path, 'NOTE.md') : entry.path;
    const read = readMarkdownCapability(entry.root.dir, file, noteKind.document);
    return { records: read === null ? [] : [read.draft], diagnostics: [] };
  },
};

export const note = (name: string, description = `${name} note`): string =>
  `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}\n---\nBody.\n`;

export interface Workspace {
  readonly home: string;
  readonly project: string;
  readonly plugins: InstalledPlugin[];
}

export function workspace(tree: {
  project?: TreeDescription;
  owner?: TreeDescription;
  plugins?: Record<string, TreeDescription>;
}): Workspace {
  const home = testdir({ project: { '.agents': tree.project ?? {} }, capabilities: tree.owner ?? {}, plugins: tree.plugins ?? {} });
  const plugins = Object.keys(tree.plugins ?? {}).map((name) => ({ name, dir: path.join(home, 'plugins', name), enabled: true }));
  return { home, project: path.join(home, 'project'), plugins };
}

export function openSession(ws: Workspace, plugins: readonly InstalledPlugin[] = ws.plugins) {
  const container = createKernel({ places: resolvePlaces({}, ws.home) }, [
    {
      name: 'test',
      now: (c) => {
        contribute(c, CapabilityKinds, noteKind);
        contribute(c, PluginSource, { listInstalledPlugins: () => plugins });
      },
    },
  ]);
  return container.resolve(SessionLoader).open({ project: ws.project });
}

const writers: ChildProcess[] = [];

/**
 * Makes a FIFO at `file`. A child process opens it for writing after `delayMs` and writes `text`:
 * on code that opens a FIFO and waits for a writer, that wait ends and the test fails on what was
 * read instead of hanging the run. Code that never waits leaves the child blocked until
 * {@link stopFifoWriters} kills it.
 */
export function fifo(file: string, text: string, delayMs = 1500): void {
  execFileSync('mkfifo', [file]);
  const script = `setTimeout(() => { try { require('fs').writeFileSync(${JSON.stringify(file)}, ${JSON.stringify(text)}); } catch {} }, ${delayMs});`;
  writers.push(spawn(process.execPath, ['-e', script], { stdio: 'ignore' }));
}

export function stopFifoWriters(): void {
  for (const child of writers.splice(0)) child.kill('SIGKILL');
}
