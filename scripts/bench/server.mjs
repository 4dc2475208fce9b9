// The server over a 10,000-skill workspace (100 plugins × 100 skills): GET /api/session latency,
// cold (first request after start) and warm (median of repeats), against a GET /api/health round
// trip; and queue throughput end to end (no-op tasks per second, 1 and 2 workers), against the
// cost of spawning `node -e ''`. Runs the built `loadout serve` as a child process. Prints one
// JSON document.
//
// BENCH_WORKSPACE=<home> uses an existing workspace (its plugins/ folders are registered if they
// are not yet); otherwise one is built in a temporary folder and removed after.
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exited, makeNoopTaskWorkspace, makeWorkspace, median, now, registerWorkspacePlugins, round } from './makeWorkspace.mjs';
import { agent, noopThroughput, request, runNoops, serve as serveIn, staticBodyFloor as bareServerFloor, timed } from './serverProcess.mjs';
const TASKS = Number(process.env.BENCH_TASKS ?? 60);
const REPEATS = Number(process.env.BENCH_RUNS ?? 25);

const given = process.env.BENCH_WORKSPACE;
const home = given === undefined || given === '' ? makeWorkspace({ plugins: 100, skillsPerPlugin: 100 }).home : path.resolve(given);
// The no-op task lives in a capabilities folder of our own, so a given workspace is not written to.
const { scratch, capabilitiesDir, emptyHome: smallHome } = makeNoopTaskWorkspace('loadout-bench-server-');

try {
  await registerWorkspacePlugins(home);

  const spawnMs = [];
  for (let i = 0; i < 15; i += 1) {
    const started = now();
    await exited(spawn(process.execPath, ['-e', ''], { stdio: 'ignore' }));
    spawnMs.push(now() - started);
  }

  const sessionRuns = [];
  let health = null;
  let sessionBytes = 0;
  let skillsInSession = 0;
  for (let run = 0; run < 3; run += 1) {
    const server = await serve(home, 2);
    try {
      const cold = await timed(() => request(server, 'GET', '/api/session'));
      sessionBytes = cold.answer.body.length;
      skillsInSession = JSON.parse(cold.answer.body).skills.length;
      const warm = [];
      for (let i = 0; i < REPEATS; i += 1) warm.push((await timed(() => request(server, 'GET', '/api/session'))).ms);
      const healthRuns = [];
      for (let i = 0; i < REPEATS * 2; i += 1) healthRuns.push((await timed(() => request(server, 'GET', '/api/health'))).ms);
      health = median(healthRuns);
      sessionRuns.push({ cold: cold.ms, warm: median(warm) });
    } finally {
      await server.stop();
    }
  }
  const transferFloorMs = await bareServerFloor(sessionBytes, REPEATS);
  const coldMs = median(sessionRuns.map((run) => run.cold));
  const warmMs = median(sessionRuns.map((run) => run.warm));
  const spawnNodeMs = median(spawnMs);

  const queue = {};
  for (const [label, workspace] of [
    ['tenThousandSkills', home],
    ['emptyWorkspace', smallHome],
  ]) {
    for (const workers of [1, 2]) {
      const server = await serve(workspace, workers);
      try {
        await request(server, 'GET', '/api/session'); // prime the watch cache, as a running server would be
        queue[label] ??= {};
        queue[label][`workers${workers}`] = noopThroughput(await runNoops(server, TASKS), TASKS, workers, spawnNodeMs);
      } finally {
        await server.stop();
      }
    }
  }

  const result = {
    benchmark: 'server',
    documents: skillsInSession,
    baseline: { healthRoundTripMs: round(health), spawnNodeMs: round(spawnNodeMs) },
    session: {
      coldMs: round(coldMs),
      warmMs: round(warmMs),
      responseBytes: sessionBytes,
      transferFloorMs: round(transferFloorMs),
      coldOverHealth: round(coldMs / health),
      warmOverHealth: round(warmMs / health),
      warmOverTransferFloor: round(warmMs / transferFloorMs),
      warmOverCold: round(warmMs / coldMs),
    },
    queue,
    cores: os.cpus().length,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  agent.destroy();
  fs.rmSync(scratch, { recursive: true, force: true });
  if (given === undefined || given === '') fs.rmSync(home, { recursive: true, force: true });
}

/** Starts `loadout serve` over `workspace` with the no-op task's capabilities folder. */
function serve(workspace, workers) {
  return serveIn(workspace, { workers, capabilitiesDir });
}
