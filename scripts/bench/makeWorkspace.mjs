// Builds a benchmark workspace: an owner capabilities folder and `plugins` plugin folders of
// `skillsPerPlugin` SKILL.md skills each, registered in the workspace's database.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * `richEvery`: every n-th skill also carries a `metadata` mapping (version, tags), the way a
 * minority of published skills do; the rest have the `name` and `description` most skills have.
 *
 * @returns {{ home: string, files: string[] }}
 */
export function makeWorkspace({ plugins = 100, skillsPerPlugin = 100, dir, richEvery = 10 } = {}) {
  const home = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'loadout-bench-'));
  fs.mkdirSync(path.join(home, 'capabilities', 'skills'), { recursive: true });
  const files = [];
  for (let p = 0; p < plugins; p += 1) {
    const plugin = `plugin-${String(p).padStart(3, '0')}`;
    for (let s = 0; s < skillsPerPlugin; s += 1) {
      const name = `${plugin}-skill-${String(s).padStart(3, '0')}`;
      const folder = path.join(home, 'plugins', plugin, 'skills', name);
      fs.mkdirSync(folder, { recursive: true });
      const file = path.join(folder, 'SKILL.md');
      fs.writeFileSync(
        file,
        `---\nname: ${name}\ndescription: Benchmark skill ${s} of ${plugin}; does nothing but take up room in a realistic way.\n${
          richEvery > 0 && s % richEvery === 0 ? `metadata:\n  version: 1.0.${s}\n  tags: [bench, generated]\n` : ''
        }---\n# ${name}\n\n${'Step by step instructions for the agent. '.repeat(20)}\n`,
      );
      files.push(file);
    }
  }
  return { home, files };
}

/** Registers every folder under `plugins/` in the workspace's database through the app itself. */
export async function registerPlugins(app, home) {
  const { PluginRegistry } = await import('../../packages/plugins/dist/index.js');
  const registry = app.resolve(PluginRegistry);
  for (const name of fs.readdirSync(path.join(home, 'plugins')).sort()) {
    if (registry.get(name) === undefined) registry.add({ name, url: `file:///bench/${name}`, ref: null, commit: '0'.repeat(40) });
  }
}

/**
 * A scratch folder with an owner's capabilities folder holding one no-op task (`noop`) and an
 * empty workspace (`small/`), for the benchmarks that run tasks: a given workspace is never
 * written to. Remove `scratch` when done.
 *
 * @returns {{ scratch: string, capabilitiesDir: string, emptyHome: string }}
 */
export function makeNoopTaskWorkspace(prefix) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const capabilitiesDir = path.join(scratch, 'capabilities');
  fs.mkdirSync(path.join(capabilitiesDir, 'tasks', 'noop'), { recursive: true });
  fs.writeFileSync(
    path.join(capabilitiesDir, 'tasks', 'noop', 'TASK.md'),
    '---\nname: No-op\ndescription: Does nothing.\nimplementation: run.mjs\n---\n',
  );
  fs.writeFileSync(path.join(capabilitiesDir, 'tasks', 'noop', 'run.mjs'), '');
  const emptyHome = path.join(scratch, 'small');
  fs.mkdirSync(emptyHome);
  return { scratch, capabilitiesDir, emptyHome };
}

/** The middle value. */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
/** Milliseconds, high resolution. */
export const now = () => Number(process.hrtime.bigint()) / 1e6;
/** Three decimals, for reports. */
export const round = (value) => Math.round(value * 1000) / 1000;

/** Resolves when `child` has exited (at once when it already has). */
export function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', resolve));
}

/** Registers the workspace's plugin folders with an app container of its own, closed again after. */
export async function registerWorkspacePlugins(home) {
  const { createLoadout } = await import('../../packages/app/dist/index.js');
  const { closeKernel, resolvePlaces } = await import('../../packages/kernel/dist/index.js');
  const app = createLoadout({ places: resolvePlaces({}, home) });
  try {
    await registerPlugins(app, home);
  } finally {
    closeKernel(app);
    await app.dispose();
  }
}
