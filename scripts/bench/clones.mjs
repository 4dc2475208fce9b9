// One clone per source repository (issue 30): 91 plugins installed from one marketplace
// repository, shaped like wshobson/agents (each plugin a folder with its manifest, agents,
// commands and skills, plus history), offline on a file:// repository.
//
// Figures:
// - `disk`: what `plugins/` takes on disk after the 91 installs, against one plain
//   `git clone --single-branch` of the repository (allocated blocks, both sides). Before clones
//   were shared each plugin was a clone of its own: about 91 of these.
// - `outdated`: `loadout plugins outdated --json` as a user runs it (a new `node` process for the
//   built command line) after an upstream commit that touches one plugin's folder: the median of
//   a few runs, against the 2 s the issue set. It must list exactly that plugin and exit 1.
//
// Prints one JSON document and one line per target on stderr.
import 'reflect-metadata';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median, now, round } from './makeWorkspace.mjs';
import { printTargets, target } from './targets.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(root, 'packages/cli/dist/main.js');
const PLUGINS = Number(process.env.BENCH_PLUGINS ?? 91);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'loadout-bench-clones-'));
const home = path.join(scratch, 'home');
const env = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: scratch,
  LANG: 'C.UTF-8',
  LOADOUT_HOME: home,
  GIT_CONFIG_GLOBAL: path.join(scratch, 'gitconfig'),
};
fs.writeFileSync(env.GIT_CONFIG_GLOBAL, '[user]\n\tname = Bench\n\temail = bench@example.invalid\n[init]\n\tdefaultBranch = main\n');

const git = (cwd, ...args) => execFileSync('git', args, { cwd, env, encoding: 'utf8' });

function write(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** Prose-like text of about `bytes`, different for every seed. */
function text(seed, bytes) {
  let out = '';
  for (let n = 0; out.length < bytes; n++)
    out += `${seed} line ${n}: ${((n * 2654435761 + seed.length) % 4294967296).toString(36)} guidance\n`;
  return out;
}

/** The marketplace repository: `PLUGINS` plugin folders, each with agents, commands and two skills, in three commits. */
function makeMarketplace(dir) {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  const entries = [];
  for (let round = 0; round < 3; round++) {
    for (let p = 0; p < PLUGINS; p++) {
      const name = `plugin-${String(p).padStart(3, '0')}`;
      const folder = path.join(dir, 'plugins', name);
      if (round === 0) {
        entries.push({ name, source: `./plugins/${name}`, description: `Plugin ${p}` });
        write(path.join(folder, '.claude-plugin', 'plugin.json'), JSON.stringify({ name, description: `Plugin ${p}` }));
      }
      for (let a = 0; a < 3; a++) write(path.join(folder, 'agents', `agent-${a}.md`), text(`${name}-agent-${a}-${round}`, 6000));
      write(path.join(folder, 'commands', 'run.md'), text(`${name}-command-${round}`, 3000));
      for (let s = 0; s < 2; s++) {
        const skill = `${name}-skill-${s}`;
        write(
          path.join(folder, 'skills', skill, 'SKILL.md'),
          `---\nname: ${skill}\ndescription: Skill ${s} of ${name}\n---\n${text(`${skill}-${round}`, 4000)}`,
        );
      }
    }
    if (round === 0) {
      write(
        path.join(dir, '.claude-plugin', 'marketplace.json'),
        JSON.stringify({ name: 'bench-market', owner: { name: 'Bench' }, plugins: entries }),
      );
    }
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', `round ${round}`);
  }
}

/** Bytes a folder takes on disk: allocated blocks of every file and folder, links not followed. */
function diskUse(dir) {
  let total = fs.lstatSync(dir).blocks * 512;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    total += fs.lstatSync(path.join(entry.parentPath, entry.name)).blocks * 512;
  }
  return total;
}

const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

/**
 * Runs the built command line to its exit. Under `/usr/bin/time` when there is one, for the CPU
 * the command and its git processes used: on a machine shared by many jobs the wall time is
 * mostly waiting for a core, and the CPU time says what the command itself costs.
 */
function loadout(...args) {
  const started = now();
  const command = TIME === null ? [process.execPath, MAIN, ...args] : [TIME, '-f', 'cpu %U %S', process.execPath, MAIN, ...args];
  const run = spawnSync(command[0], command.slice(1), { env, encoding: 'utf8' });
  const cpu = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(run.stderr);
  return {
    ms: now() - started,
    cpuMs: cpu === null ? null : (Number(cpu[1]) + Number(cpu[2])) * 1000,
    status: run.status,
    stdout: run.stdout,
    stderr: run.stderr,
  };
}

try {
  const market = path.join(scratch, 'market');
  makeMarketplace(market);
  fs.mkdirSync(path.join(home, 'capabilities'), { recursive: true });
  git(path.join(home, 'capabilities'), 'init', '-q');

  const { loadModules, resolve, closeKernel, resolvePlaces } = await import('../../packages/kernel/dist/index.js');
  const { createLoadout, loadoutModules } = await import('../../packages/app/dist/index.js');
  const { MarketplaceManager } = await import('../../packages/plugins/dist/index.js');
  await loadModules(loadoutModules);
  const app = createLoadout({ places: resolvePlaces({ LOADOUT_HOME: home }, home) });
  const installStarted = now();
  try {
    const marketplaces = resolve(app, MarketplaceManager);
    await marketplaces.add(market);
    for (let p = 0; p < PLUGINS; p++) await marketplaces.install(`plugin-${String(p).padStart(3, '0')}@bench-market`);
  } finally {
    closeKernel(app);
    await app.dispose();
  }
  const installMs = now() - installStarted;

  const plain = path.join(scratch, 'plain-clone');
  git(scratch, 'clone', '-q', '--single-branch', `file://${market}`, plain);
  const pluginsDisk = diskUse(path.join(home, 'plugins'));
  const oneClone = diskUse(plain);
  const clones = fs.readdirSync(path.join(home, 'plugins')).filter((name) => !name.startsWith('.'));

  const changed = `plugin-${String(Math.min(7, PLUGINS - 1)).padStart(3, '0')}`;
  write(
    path.join(market, 'plugins', changed, 'skills', `${changed}-skill-0`, 'SKILL.md'),
    `---\nname: ${changed}-skill-0\ndescription: changed\n---\nNew.\n`,
  );
  git(market, 'commit', '-q', '-am', 'one plugin changed');
  const runs = [];
  const cpu = [];
  const baseline = [];
  let last = null;
  for (let n = 0; n < RUNS; n++) {
    last = loadout('plugins', 'outdated', '--json');
    runs.push(last.ms);
    cpu.push(last.cpuMs);
    // A command that starts the same way and runs no git: what the machine charges any command now.
    baseline.push(loadout('plugins', 'list', '--json').ms);
  }
  const listed = JSON.parse(last.stdout).map((found) => found.name);
  const outdatedMs = median(runs);

  const targets = [
    target('disk of 91 plugins from one repository vs one plain clone', pluginsDisk / oneClone, 1.5, {
      holds: clones.length === 1,
      note: `plugins/ holds ${clones.length} clones`,
    }),
    target('`plugins outdated` over 91 plugins of one repository vs 2 s', outdatedMs / 2000, 1, {
      holds: last.status === 1 && listed.join(',') === changed,
      note: `exit ${last.status}, listed ${listed.join(',')}`,
    }),
  ];
  printTargets('clones', targets);
  process.stdout.write(
    `${JSON.stringify(
      {
        bench: 'clones',
        plugins: PLUGINS,
        clonesInPluginsDir: clones.length,
        pluginsDiskBytes: pluginsDisk,
        oneCloneDiskBytes: oneClone,
        diskRatio: round(pluginsDisk / oneClone),
        perPluginClonesEstimateBytes: oneClone * PLUGINS,
        installAllMs: round(installMs),
        outdatedMs: round(outdatedMs),
        outdatedRunsMs: runs.map(round),
        outdatedCpuMs: cpu[0] === null ? null : round(median(cpu)),
        listBaselineMs: round(median(baseline)),
        loadAverage: os.loadavg().map(round),
        outdatedListed: listed,
        outdatedExit: last.status,
        targets,
      },
      null,
      2,
    )}\n`,
  );
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
