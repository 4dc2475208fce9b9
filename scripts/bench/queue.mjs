// The job queue across servers: no-op runs through the built `loadout serve`, on the SQLite file
// with one server, and on one PostgreSQL database with one and with two servers (each with its own
// data folder and port, 2 workers each). Runs are sent alternately to every server; the clock
// stops when the last one has succeeded. Reported as tasks per second and as worker time per task
// over the cost of spawning `node -e ''` in the same run. Prints one JSON document.
//
// PostgreSQL: LOADOUT_TEST_DATABASE_URL when set, else a throw-away cluster from
// scripts/ensure-postgres.sh, stopped at the end.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { exited, makeNoopTaskWorkspace, median, now, round } from './makeWorkspace.mjs';
import { agent, noopThroughput, request, runNoops, serve as serveIn } from './serverProcess.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const TASKS = Number(process.env.BENCH_QUEUE_TASKS ?? 120);
const WORKERS = 2;
const pg = createRequire(path.join(root, 'packages/db/package.json'))('pg');
const { scratch, capabilitiesDir } = makeNoopTaskWorkspace('loadout-bench-queue-');

let cluster = null;
let adminUrl = process.env.LOADOUT_TEST_DATABASE_URL ?? '';
if (adminUrl === '') {
  const exports = execFileSync('bash', [path.join(root, 'scripts/ensure-postgres.sh'), 'start'], { encoding: 'utf8' });
  adminUrl = /LOADOUT_TEST_DATABASE_URL=(\S+)/.exec(exports)[1];
  cluster = /LOADOUT_TEST_PG_DIR=(\S+)/.exec(exports)[1];
}

try {
  const spawnMs = [];
  for (let i = 0; i < 15; i += 1) {
    const started = now();
    await exited(spawn(process.execPath, ['-e', ''], { stdio: 'ignore' }));
    spawnMs.push(now() - started);
  }
  const spawnNodeMs = median(spawnMs);

  const setups = [
    { label: 'sqlite1Server', servers: 1, database: null },
    { label: 'postgres1Server', servers: 1, database: 'bench_queue_one' },
    { label: 'postgres2Servers', servers: 2, database: 'bench_queue_two' },
  ];
  const queue = {};
  for (const setup of setups) {
    const url = setup.database === null ? null : await freshDatabase(setup.database);
    const servers = await Promise.all(Array.from({ length: setup.servers }, (_, index) => serve(`${setup.label}-${index}`, url)));
    try {
      // The first request of each server opens its session cache and (on PostgreSQL) its pool.
      for (const server of servers) await request(server, 'GET', '/api/jobs?limit=1');
      const workers = setup.servers * WORKERS;
      queue[setup.label] = {
        servers: setup.servers,
        workers,
        ...noopThroughput(await runNoops(servers, TASKS), TASKS, workers, spawnNodeMs),
      };
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  }
  const base = queue.sqlite1Server.tasksPerSecond;
  const result = {
    benchmark: 'queue',
    baseline: { spawnNodeMs: round(spawnNodeMs) },
    queue,
    scaling: {
      postgres1OverSqlite1: round(queue.postgres1Server.tasksPerSecond / base),
      postgres2OverSqlite1: round(queue.postgres2Servers.tasksPerSecond / base),
      postgres2OverPostgres1: round(queue.postgres2Servers.tasksPerSecond / queue.postgres1Server.tasksPerSecond),
    },
    cores: os.cpus().length,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  agent.destroy();
  fs.rmSync(scratch, { recursive: true, force: true });
  if (cluster !== null) execFileSync('bash', [path.join(root, 'scripts/ensure-postgres.sh'), 'stop', cluster]);
}

/** A new, empty database named `name` on the server (dropped first when an earlier run left it). */
async function freshDatabase(name) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Starts `loadout serve --port 0` with a home of its own, on `databaseUrl` (null: SQLite). */
function serve(name, databaseUrl) {
  const home = path.join(scratch, name);
  fs.mkdirSync(home, { recursive: true });
  return serveIn(home, { workers: WORKERS, capabilitiesDir, env: databaseUrl === null ? {} : { LOADOUT_DATABASE_URL: databaseUrl } });
}
