// One-shot commands as a user runs them: a new `node` process for the built `loadout`, from start
// to exit, each run paired with a spawn of `node -e ''` (the baseline) so both see the same
// machine. Every process gets the same small environment (PATH, HOME, LANG), so a variable such as
// NODE_EXTRA_CA_CERTS in the caller's environment colours neither side.
//
// Figures, each named for what it is:
// - `version`: `loadout --version`.
// - `sessionShipped`: `loadout session --json` over the repository's own capabilities (a fresh
//   clone's workspace, with a scratch data folder).
// - `sessionTenThousand`: `loadout session --json` over 100 plugins × 100 skills: the real cold
//   cost of one session as a user pays it (module loading, database, scan, serialization), beside
//   the in-process rescan that sessions.mjs calls "cold".
//
// Prints one JSON document and one line per target on stderr.
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exited, makeWorkspace, median, now, registerWorkspacePlugins, round } from './makeWorkspace.mjs';
import { printTargets, target } from './targets.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(root, 'packages/cli/dist/main.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'loadout-bench-oneshot-'));
const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch, LANG: 'C.UTF-8' };

/** Runs `node <args>` to its exit; fails the benchmark on a non-zero status. */
async function run(args, env) {
  const started = now();
  const child = spawn(process.execPath, args, { env: { ...baseEnv, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  await exited(child);
  const ms = now() - started;
  if (child.exitCode !== 0) throw new Error(`node ${args.join(' ')} exited ${child.exitCode}: ${stderr}`);
  return ms;
}

/** The median of `runs` timings of `args`, each paired with a baseline spawn recorded in `baseline`. */
async function measure(args, env, baseline) {
  await run(args, env); // the page cache, as for a user's second command
  const runs = [];
  for (let i = 0; i < RUNS; i += 1) {
    baseline.push(await run(['-e', ''], {}));
    runs.push(await run(args, env));
  }
  return median(runs);
}

const { home } = makeWorkspace({ plugins: 100, skillsPerPlugin: 100 });
try {
  await registerWorkspacePlugins(home);
  const baseline = [];
  const versionMs = await measure([MAIN, '--version'], {}, baseline);
  const shippedMs = await measure(
    [MAIN, 'session', '--json'],
    { LOADOUT_HOME: root, LOADOUT_DATA_DIR: path.join(scratch, 'data') },
    baseline,
  );
  const tenThousandMs = await measure([MAIN, 'session', '--json'], { LOADOUT_HOME: home }, baseline);
  const spawnNodeMs = median(baseline);
  const result = {
    benchmark: 'oneshot',
    runs: RUNS,
    baseline: { spawnNodeMs: round(spawnNodeMs) },
    figures: {
      versionMs: round(versionMs),
      sessionShippedMs: round(shippedMs),
      sessionTenThousandMs: round(tenThousandMs),
    },
    cores: os.cpus().length,
  };
  result.targets = [
    target("loadout --version ≤ 2× node -e ''", versionMs / spawnNodeMs, 2),
    target("loadout session --json, shipped capabilities ≤ 3× node -e ''", shippedMs / spawnNodeMs, 3),
  ];
  result.ratios = { sessionTenThousandOverSpawn: round(tenThousandMs / spawnNodeMs) };
  printTargets('oneshot', result.targets);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(scratch, { recursive: true, force: true });
}
