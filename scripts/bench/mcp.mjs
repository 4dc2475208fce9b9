// MCP over a 10,000-skill workspace (100 plugins × 100 skills), through the official SDK client,
// against the built command: `loadout mcp` over stdio and `/mcp` on `loadout serve`.
//
// - tools/list and resources/list, warm (median of repeats after the first), as a ratio to an MCP
//   `ping` round trip on the same connection (target ≤ 20×), measured by `againstPing`: the ping
//   baseline every MCP request figure compares against (`baseline.pingMs` per transport). resources/list is paged: the figure
//   is one page, which is what one request costs; the whole walk is reported beside it.
// - callTool of a no-op task (one job row, the real runner), as a ratio to spawning `node -e ''`
//   from this process with the environment the runner gives tasks, each call paired with a spawn
//   just before it (target ≤ 1.5×, the median of the pairs' ratios), in the big workspace and in an
//   empty one, each server having answered the same requests before its calls are timed.
//
// - skills/list (Skills extension) of the 10,000 skills, one page (100 entries, each with its
//   files' digests), warm, as a ratio to `ping` (target ≤ 3×).
// - the no-op task called as an MCP task (Tasks extension: created, then `tasks/get` until it ended,
//   polled every millisecond so the figure is the server's and not a client's poll cadence), as a
//   ratio to the same no-op called plain just before it (target ≤ 1.2×, the median of the pairs).
//
// Prints one JSON document, and one line per target (met / not met) on stderr.
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exited, makeNoopTaskWorkspace, makeWorkspace, median, now, registerWorkspacePlugins, round } from './makeWorkspace.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(root, 'packages/cli/dist/main.js');
const SDK = path.join(root, 'packages/e2e/node_modules/@modelcontextprotocol/sdk/dist/esm');
const { Client } = await import(path.join(SDK, 'client/index.js'));
const { StdioClientTransport } = await import(path.join(SDK, 'client/stdio.js'));
const { StreamableHTTPClientTransport } = await import(path.join(SDK, 'client/streamableHttp.js'));
const { ResultSchema } = await import(path.join(SDK, 'types.js'));

/** Declares the Tasks extension for one request (the bench client does not declare it when it connects). */
const TASKS_OPT_IN = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

const REPEATS = Number(process.env.BENCH_RUNS ?? 40);
const CALLS = Number(process.env.BENCH_CALLS ?? 15);
const TOKEN = 'bench-token-0123456789abcdef';

const { home } = makeWorkspace({ plugins: 100, skillsPerPlugin: 100 });
// The no-op task lives in a capabilities folder of our own, as in the server benchmark.
const { scratch, capabilitiesDir, emptyHome } = makeNoopTaskWorkspace('loadout-bench-mcp-');
// The same no-op, declared to run as an MCP task for a client that speaks the Tasks extension.
fs.mkdirSync(path.join(capabilitiesDir, 'tasks', 'noop-task'));
fs.writeFileSync(
  path.join(capabilitiesDir, 'tasks', 'noop-task', 'TASK.md'),
  '---\nname: No-op task\ndescription: Does nothing, as an MCP task.\nimplementation: run.mjs\nmcp-task: optional\n---\n',
);
fs.writeFileSync(path.join(capabilitiesDir, 'tasks', 'noop-task', 'run.mjs'), '');

/**
 * The environment the task runner gives a task (PATH, HOME, LANG, TMPDIR), for the baseline spawn:
 * a variable such as NODE_EXTRA_CA_CERTS in this process's environment makes every node start
 * load a certificate bundle, which the tasks never pay, and would flatter the ratio.
 */
const RUNNER_ENV = Object.fromEntries(
  ['PATH', 'HOME', 'LANG', 'TMPDIR'].filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]),
);

const envFor = (workspace) => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME ?? os.homedir(),
  LOADOUT_HOME: workspace,
  LOADOUT_CAPABILITIES_DIR: capabilitiesDir,
  LOADOUT_DATA_DIR: path.join(workspace, '.loadout'),
  LOADOUT_TOKEN: TOKEN,
});

try {
  await registerWorkspacePlugins(home);

  const spawnMs = [];

  const transports = {};
  for (const [name, connect] of [
    ['stdio', connectStdio],
    ['http', connectHttp],
  ]) {
    const big = await connect(home);
    let lists;
    try {
      lists = await measureLists(big.client);
      lists.calls = await measureCalls(big.client, spawnMs);
      lists.taskCalls = await measureTaskCalls(big.client);
    } finally {
      await big.close();
    }
    const small = await connect(emptyHome);
    let emptyCalls;
    try {
      // The same requests before its calls as the big workspace's server answered (its lists are
      // short here): both servers' calls are timed equally warm, so the two figures differ by the
      // workspace alone and not by how many requests the server had seen.
      await measureLists(small.client);
      emptyCalls = await measureCalls(small.client, spawnMs);
    } finally {
      await small.close();
    }
    transports[name] = {
      pingMs: round(lists.pingMs),
      toolsList: { coldMs: round(lists.toolsColdMs), warmMs: round(lists.toolsMs), overPing: round(lists.toolsMs / lists.pingMs) },
      skillsList: {
        pageMs: round(lists.skillsPageMs),
        overPing: round(lists.skillsPageMs / lists.pingMs),
        pageSize: lists.skillsPageSize,
      },
      taskCall: {
        plainMs: round(lists.taskCalls.plainMs),
        taskMs: round(lists.taskCalls.taskMs),
        overPlain: round(lists.taskCalls.overPlain),
      },
      resourcesList: {
        pageMs: round(lists.resourcesPageMs),
        overPing: round(lists.resourcesPageMs / lists.pingMs),
        pageSize: lists.pageSize,
        pages: lists.pages,
        resources: lists.resources,
        wholeListMs: round(lists.wholeListMs),
      },
      callTool: {
        tenThousandSkillsMs: round(lists.calls.ms),
        tenThousandSkillsOverSpawn: round(lists.calls.overSpawn),
        emptyWorkspaceMs: round(emptyCalls.ms),
        emptyWorkspaceOverSpawn: round(emptyCalls.overSpawn),
      },
    };
  }

  const spawnNodeMs = median(spawnMs);
  const targets = [];
  for (const [name, figures] of Object.entries(transports)) {
    targets.push({ target: `${name} tools/list warm ≤ 20× ping`, ratio: figures.toolsList.overPing, limit: 20 });
    targets.push({ target: `${name} resources/list warm ≤ 20× ping`, ratio: figures.resourcesList.overPing, limit: 20 });
    targets.push({ target: `${name} skills/list one page of 10,000 skills ≤ 3× ping`, ratio: figures.skillsList.overPing, limit: 3 });
    targets.push({
      target: `${name} tool call as an MCP task, created to result ≤ 1.2× plain`,
      ratio: figures.taskCall.overPlain,
      limit: 1.2,
    });
    targets.push({
      target: `${name} callTool no-op (10,000 skills) ≤ 1.5× node -e ''`,
      ratio: figures.callTool.tenThousandSkillsOverSpawn,
      limit: 1.5,
    });
    targets.push({
      target: `${name} callTool no-op (empty workspace) ≤ 1.5× node -e ''`,
      ratio: figures.callTool.emptyWorkspaceOverSpawn,
      limit: 1.5,
    });
  }
  for (const target of targets) {
    target.met = target.ratio <= target.limit;
    process.stderr.write(`bench mcp: ${target.target}: ${target.ratio}× — ${target.met ? 'met' : 'NOT met'}\n`);
  }
  const result = {
    benchmark: 'mcp',
    skills: 10_000,
    // What the MCP figures are ratios of: spawning `node -e ''` (tool calls) and an MCP `ping`
    // round trip on the same connection (lists), per transport.
    baseline: {
      spawnNodeMs: round(spawnNodeMs),
      pingMs: Object.fromEntries(Object.entries(transports).map(([name, figures]) => [name, figures.pingMs])),
    },
    transports,
    targets,
    cores: os.cpus().length,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
}

async function measureLists(client) {
  for (let i = 0; i < 20; i += 1) await client.ping();
  const cold = now();
  await client.listTools();
  const toolsColdMs = now() - cold;
  const skillsPage = () => client.request({ method: 'skills/list', params: {} }, ResultSchema);
  await skillsPage();
  const measured = await againstPing(client, {
    tools: () => client.listTools(),
    resourcesPage: () => client.listResources(),
    skillsPage,
  });
  const skillsPageSize = (await skillsPage()).skills.length;
  const first = await client.listResources();
  const whole = [];
  let count = 0;
  let pageCount = 0;
  for (let i = 0; i < 5; i += 1) {
    const started = now();
    let cursor;
    count = 0;
    pageCount = 0;
    do {
      const page = await client.listResources(cursor === undefined ? {} : { cursor });
      count += page.resources.length;
      pageCount += 1;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    whole.push(now() - started);
  }
  return {
    pingMs: measured.pingMs,
    toolsColdMs,
    toolsMs: measured.tools.ms,
    resourcesPageMs: measured.resourcesPage.ms,
    skillsPageMs: measured.skillsPage.ms,
    skillsPageSize,
    pageSize: first.resources.length,
    pages: pageCount,
    resources: count,
    wholeListMs: median(whole),
  };
}

/**
 * Calls the no-op task; each call is paired with a spawn of `node -e ''` just before it (also kept
 * in `spawnMs`), so both see the same moment of the machine. The ratio is the median of the pairs'
 * ratios: a slow spell of a shared machine lands on a call and its own baseline together, where a
 * ratio of medians taken over different minutes would charge it to one side.
 */
async function measureCalls(client, spawnMs) {
  const runs = [];
  const ratios = [];
  await client.callTool({ name: 'noop', arguments: {} });
  for (let i = 0; i < CALLS; i += 1) {
    const spawned = now();
    await exited(spawn(process.execPath, ['-e', ''], { stdio: 'ignore', env: RUNNER_ENV }));
    const baseline = now() - spawned;
    spawnMs.push(baseline);
    const started = now();
    const result = await client.callTool({ name: 'noop', arguments: {} });
    const ms = now() - started;
    runs.push(ms);
    ratios.push(ms / baseline);
    if (result.isError) throw new Error(`the no-op task failed: ${JSON.stringify(result.content)}`);
  }
  return { ms: median(runs), overSpawn: median(ratios) };
}

/**
 * The no-op as an MCP task, created to result, paired with the no-op called plain just before it;
 * the ratio is the median of the pairs' ratios (see measureCalls).
 */
async function measureTaskCalls(client) {
  const plain = [];
  const tasks = [];
  const ratios = [];
  const asTask = async () => {
    const created = await client.request(
      { method: 'tools/call', params: { name: 'noop-task', arguments: {}, _meta: TASKS_OPT_IN } },
      ResultSchema,
    );
    if (created.resultType !== 'task') throw new Error(`noop-task was not made a task: ${JSON.stringify(created)}`);
    for (;;) {
      const task = await client.request({ method: 'tasks/get', params: { taskId: created.taskId, _meta: TASKS_OPT_IN } }, ResultSchema);
      if (task.status === 'completed') return;
      if (task.status !== 'working') throw new Error(`the no-op task ended ${task.status}: ${JSON.stringify(task)}`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  };
  await asTask();
  for (let i = 0; i < CALLS; i += 1) {
    const started = now();
    await client.callTool({ name: 'noop', arguments: {} });
    const plainMs = now() - started;
    const taskMs = await timed(asTask);
    plain.push(plainMs);
    tasks.push(taskMs);
    ratios.push(taskMs / plainMs);
  }
  return { plainMs: median(plain), taskMs: median(tasks), overPlain: median(ratios) };
}

async function connectStdio(workspace) {
  const client = new Client({ name: 'bench', version: '1' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, 'mcp'],
    env: envFor(workspace),
    cwd: scratch,
    stderr: 'inherit',
  });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

async function connectHttp(workspace) {
  const child = spawn(process.execPath, [MAIN, 'serve', '--port', '0', '--json'], {
    env: envFor(workspace),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (data) => {
      out += data;
      try {
        resolve(JSON.parse(out).port);
      } catch {
        // not complete yet
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    }),
  );
  return {
    client,
    close: async () => {
      await client.close();
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

/**
 * The MCP `ping` baseline: every request of `probes` (name → a function making one request) timed
 * {@link REPEATS} times, each round after a `ping` on the same connection, interleaved so the
 * baseline and the figures see the same machine at the same moment. Returns the median ping and,
 * per probe, its median and its ratio to ping. Another figure measured against ping (`skills/list`,
 * a tool call run as an MCP task) is one more entry of `probes`.
 */
async function againstPing(client, probes) {
  const ping = [];
  const times = Object.fromEntries(Object.keys(probes).map((name) => [name, []]));
  for (let i = 0; i < REPEATS; i += 1) {
    ping.push(await timed(() => client.ping()));
    for (const [name, probe] of Object.entries(probes)) times[name].push(await timed(probe));
  }
  const pingMs = median(ping);
  const figures = { pingMs };
  for (const [name, values] of Object.entries(times)) figures[name] = { ms: median(values), overPing: median(values) / pingMs };
  return figures;
}

async function timed(fn) {
  const started = now();
  await fn();
  return now() - started;
}
