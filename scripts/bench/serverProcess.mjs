// The built `loadout serve` as a benchmark drives it: started in its own process, asked over one
// keep-alive agent, and the floor a bare server sets for sending a body of the same size.
// BENCH_SERVER_PROFILE=DIR writes each server's CPU profiles (every thread's) there, for a look at
// where a figure's time goes; the figures of such a run are the profiler's, not Loadout's.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { exited, median, now, round } from './makeWorkspace.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(root, 'packages/cli/dist/main.js');

export const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/**
 * Starts `loadout serve --port 0` over `workspace` with the owner's capabilities in
 * `capabilitiesDir`, and waits until it listens. `env` adds variables (e.g. LOADOUT_WATCH_BUDGET).
 */
export function serve(workspace, { workers = 2, capabilitiesDir, env = {} }) {
  const childEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME ?? os.homedir(),
    LOADOUT_HOME: workspace,
    LOADOUT_CAPABILITIES_DIR: capabilitiesDir,
    // The big workspace's data folder holds its plugin registry; the empty one gets its own.
    LOADOUT_DATA_DIR: path.join(workspace, '.loadout'),
    ...env,
  };
  const child = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_SERVER_PROFILE
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SERVER_PROFILE}`, '--cpu-prof-interval=100']
        : []),
      MAIN,
      'serve',
      '--port',
      '0',
      '--json',
      '--workers',
      String(workers),
    ],
    { env: childEnv, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (data) => {
      out += data;
      let described;
      try {
        described = JSON.parse(out);
      } catch {
        return;
      }
      const token = fs.readFileSync(described.token.file, 'utf8').trim();
      resolve({
        port: described.port,
        token,
        stop: async () => {
          child.kill('SIGTERM');
          await exited(child);
        },
      });
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
}

/** One request; resolves with the status, headers and body text, rejects on a status of 400 or more. */
export function request(server, method, url, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const sent = { authorization: `Bearer ${server.token}`, ...headers };
    if (body !== undefined) sent['content-type'] = 'application/json';
    const req = http.request({ host: '127.0.0.1', port: server.port, method, path: url, headers: sent, agent }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode >= 400) reject(new Error(`${method} ${url}: ${res.statusCode} ${text.slice(0, 200)}`));
        else resolve({ status: res.statusCode, headers: res.headers, body: text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Times `fn`, keeping what it answered. */
export async function timed(fn) {
  const started = now();
  const answer = await fn();
  return { ms: now() - started, answer };
}

/**
 * The floor for answering a body of `bytes`: a bare node:http server in its own process sending a
 * prebuilt string of that size, to be read by this process the way the session is read. Started
 * beside Loadout's server, so each request to it can be paired with one to Loadout's.
 */
export async function startBareServer(bytes) {
  const source = `const body = 'x'.repeat(${bytes}); require('node:http').createServer((q, r) => { r.setHeader('content-type', 'application/json'); r.end(body); }).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) => child.stdout.once('data', (data) => resolve(Number(String(data).trim()))));
  return {
    port,
    token: '',
    stop: async () => {
      child.kill();
      await exited(child);
    },
  };
}

/** The median time of `repeats` requests to a bare server sending a body of `bytes` ({@link startBareServer}). */
export async function staticBodyFloor(bytes, repeats) {
  const server = await startBareServer(bytes);
  try {
    const runs = [];
    for (let i = 0; i < repeats; i += 1) runs.push((await timed(() => request(server, 'GET', '/'))).ms);
    return median(runs);
  } finally {
    await server.stop();
  }
}

/**
 * What {@link runNoops} measured as a bench row: throughput, and the worker time each task took
 * over the cost of spawning `node -e ''` (`spawnNodeMs`), `workers` being every worker that ran them.
 */
export function noopThroughput({ seconds, failed }, count, workers, spawnNodeMs) {
  const workerMsPerTask = (seconds * 1000 * workers) / count;
  return {
    tasks: count,
    failed,
    seconds: round(seconds),
    tasksPerSecond: round(count / seconds),
    workerMsPerTask: round(workerMsPerTask),
    workerMsPerTaskOverSpawn: round(workerMsPerTask / spawnNodeMs),
  };
}

/**
 * Queues `count` runs of the no-op task, sent in turn to each of `servers` (one server, or several
 * sharing a database), and waits for all to end; the seconds it took and how many failed.
 */
export async function runNoops(servers, count) {
  const all = Array.isArray(servers) ? servers : [servers];
  const started = now();
  const ids = await Promise.all(
    Array.from(
      { length: count },
      async (_, n) => JSON.parse((await request(all[n % all.length], 'POST', '/api/tasks/noop/runs', '{}')).body).job.id,
    ),
  );
  const wanted = new Set(ids);
  for (;;) {
    const done = JSON.parse((await request(all[0], 'GET', '/api/jobs?limit=500')).body).filter(
      (job) => wanted.has(job.id) && (job.status === 'succeeded' || job.status === 'failed'),
    );
    if (done.length === count) return { seconds: (now() - started) / 1000, failed: done.filter((job) => job.status === 'failed').length };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
