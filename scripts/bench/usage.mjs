// The usage ledger's cost where an agent could feel it.
//
// - `sessionEmptyMs` / `sessionThousandMs`: `loadout session --json` (a new process, start to exit)
//   over the same workspace with an empty ledger and with 1,000 recorded events, the runs
//   alternated so both see the same machine. Opening a session neither reads the ledger nor takes
//   in the spool, so the ratio should be noise around 1.
// - `recordPerCallUs`: what `UsageRecorder.record` costs the request that reports a use (an MCP
//   read or tool call), in microseconds per call, over 10,000 calls; `flushThousandMs`: writing
//   1,000 waiting events in one transaction, which happens off the request's path.
//
// Every process gets the same small environment (PATH, HOME, LANG). Prints one JSON document and
// one line per target on stderr.
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exited, makeWorkspace, median, now, round } from './makeWorkspace.mjs';
import { printTargets, target } from './targets.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(root, 'packages/cli/dist/main.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const EVENTS = 1000;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'loadout-bench-usage-'));
const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch, LANG: 'C.UTF-8' };

/** Runs the built `loadout` with `args` to its exit; fails the benchmark on a non-zero status. */
async function loadout(args, env) {
  const started = now();
  const child = spawn(process.execPath, [MAIN, ...args], { env: { ...baseEnv, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  await exited(child);
  const ms = now() - started;
  if (child.exitCode !== 0) throw new Error(`loadout ${args.join(' ')} exited ${child.exitCode}: ${stderr}`);
  return ms;
}

/** A spool file of `count` events, as runtime hooks write them, spread over the last ten days and a hundred skills. */
function writeSpool(dataDir, count) {
  const spool = path.join(dataDir, 'usage', 'spool');
  fs.mkdirSync(spool, { recursive: true });
  const lines = [];
  for (let i = 0; i < count; i += 1) {
    lines.push(
      JSON.stringify({
        v: 1,
        at: new Date(Date.now() - (i % 10) * 86_400_000).toISOString(),
        runtime: i % 2 === 0 ? 'claude-code' : 'codex',
        project: null,
        kind: 'skill',
        name: `plugin-000-skill-${String(i % 100).padStart(3, '0')}`,
        event: i % 50 === 0 ? 'failed' : 'invoked',
        session: `s${i % 40}`,
      }),
    );
  }
  fs.writeFileSync(path.join(spool, 'bench.jsonl'), `${lines.join('\n')}\n`);
}

/** The recorder's per-call cost and one 1,000-event flush, in this process, on a real SQLite ledger. */
async function recorderCost(home) {
  const { loadModules, resolve, closeKernel, resolvePlaces } = await import('../../packages/kernel/dist/index.js');
  const { createLoadout, loadoutModules } = await import('../../packages/app/dist/index.js');
  const { UsageRecorder } = await import('../../packages/usage/dist/index.js');
  await loadModules(loadoutModules);
  const app = createLoadout({ places: resolvePlaces({ LOADOUT_HOME: home, LOADOUT_DATA_DIR: path.join(scratch, 'recorder') }, home) });
  try {
    const recorder = resolve(app, UsageRecorder);
    const use = { runtime: 'bench', project: null, kind: 'skill', name: 'pdf', server: null, event: 'invoked', session: 'b' };
    const calls = 10_000;
    const started = now();
    for (let i = 0; i < calls; i += 1) recorder.record(use);
    const perCallUs = ((now() - started) * 1000) / calls;
    await recorder.flush();
    const flushes = [];
    for (let run = 0; run < 5; run += 1) {
      for (let i = 0; i < EVENTS; i += 1) recorder.record(use);
      const flushStarted = now();
      await recorder.flush();
      flushes.push(now() - flushStarted);
    }
    return { perCallUs, flushMs: median(flushes) };
  } finally {
    closeKernel(app);
    await app.dispose();
  }
}

const { home } = makeWorkspace({ plugins: 10, skillsPerPlugin: 100 });
try {
  const emptyData = path.join(scratch, 'empty');
  const fullData = path.join(scratch, 'thousand');
  writeSpool(fullData, EVENTS);
  // Taken in through the command a user runs: the ledger then holds the 1,000 events.
  await loadout(['usage', '--json'], { LOADOUT_HOME: home, LOADOUT_DATA_DIR: fullData });
  await loadout(['usage', '--json'], { LOADOUT_HOME: home, LOADOUT_DATA_DIR: emptyData });
  const session = ['session', '--json'];
  const empty = [];
  const full = [];
  await loadout(session, { LOADOUT_HOME: home, LOADOUT_DATA_DIR: emptyData });
  await loadout(session, { LOADOUT_HOME: home, LOADOUT_DATA_DIR: fullData });
  for (let i = 0; i < RUNS; i += 1) {
    empty.push(await loadout(session, { LOADOUT_HOME: home, LOADOUT_DATA_DIR: emptyData }));
    full.push(await loadout(session, { LOADOUT_HOME: home, LOADOUT_DATA_DIR: fullData }));
  }
  const emptyMs = median(empty);
  const fullMs = median(full);
  const recorder = await recorderCost(home);
  const result = {
    benchmark: 'usage',
    runs: RUNS,
    baseline: { sessionEmptyMs: round(emptyMs) },
    figures: {
      sessionThousandMs: round(fullMs),
      recordPerCallUs: round(recorder.perCallUs),
      flushThousandMs: round(recorder.flushMs),
    },
    cores: os.cpus().length,
  };
  result.targets = [target('loadout session --json with 1,000 recorded events ≤ 1.1× with an empty ledger', fullMs / emptyMs, 1.1)];
  printTargets('usage', result.targets);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(scratch, { recursive: true, force: true });
}
