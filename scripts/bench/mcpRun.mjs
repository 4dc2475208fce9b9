// A server whose secret Loadout holds, started the way a runtime starts it: through
// `loadout mcp run NAME --secret VAR=SECRET -- node server.cjs` (the built command line), against
// the same server started directly with the value in its environment. Each figure is the time from
// spawning to the answer of `initialize` (the first thing a client waits for), the two started in
// turn, run by run; the target is the median of the pairs' ratios ≤ 1.3×.
//
// Two servers: `sdk`, an MCP server on the official SDK (what servers are built on; the target is
// measured on it), and `plain`, a bare stdio JSON-RPC responder, whose figure shows Loadout's cost
// at the smallest possible server (one more Node start: about 2× there, reported, no target).
// Both answer with the sha256 of the secret, so each run checks the value arrived.
//
// Prints one JSON document and one line per target on stderr.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median, now, round } from './makeWorkspace.mjs';
import { printTargets, target } from './targets.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(root, 'packages/cli/dist/main.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const SECRET = 'bench-secret-value-0123456789';
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'loadout-bench-mcp-run-'));
const dataDir = path.join(scratch, 'data');
fs.mkdirSync(dataDir, { mode: 0o700 });
fs.writeFileSync(path.join(dataDir, 'secrets.json'), `${JSON.stringify({ version: 1, secrets: { 'bench-token': SECRET } })}\n`, {
  mode: 0o600,
});
const SDK = path.join(root, 'packages/e2e/node_modules/@modelcontextprotocol/sdk/dist/cjs');
const sdkServer = path.join(scratch, 'sdk-server.cjs');
fs.writeFileSync(
  sdkServer,
  [
    `const { McpServer } = require(${JSON.stringify(path.join(SDK, 'server/mcp.js'))});`,
    `const { StdioServerTransport } = require(${JSON.stringify(path.join(SDK, 'server/stdio.js'))});`,
    "const { createHash } = require('node:crypto');",
    "const token = createHash('sha256').update(process.env.BENCH_TOKEN ?? '').digest('hex');",
    "const server = new McpServer({ name: 'bench', version: token });",
    "server.registerTool('ping', { description: 'Answers pong' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));",
    'server.connect(new StdioServerTransport());',
    '',
  ].join('\n'),
);
const plainServer = path.join(scratch, 'plain-server.cjs');
fs.writeFileSync(
  plainServer,
  [
    "const { createHash } = require('node:crypto');",
    "const token = createHash('sha256').update(process.env.BENCH_TOKEN ?? '').digest('hex');",
    "let buffer = '';",
    "process.stdin.on('data', (chunk) => {",
    '  buffer += chunk;',
    "  for (let cut = buffer.indexOf('\\n'); cut >= 0; cut = buffer.indexOf('\\n')) {",
    '    const message = JSON.parse(buffer.slice(0, cut));',
    '    buffer = buffer.slice(cut + 1);',
    "    if (message.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'bench', version: token } } }) + '\\n');",
    '  }',
    '});',
    '',
  ].join('\n'),
);
const expected = createHash('sha256').update(SECRET).digest('hex');
const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch, LANG: 'C.UTF-8' };
const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`;

/** Milliseconds from spawn to the initialize answer; checks the server saw the secret. */
function firstAnswer(command, args, env) {
  return new Promise((done, fail) => {
    const started = now();
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (!out.includes('\n')) return;
      const elapsed = now() - started;
      const answer = JSON.parse(out.slice(0, out.indexOf('\n')));
      child.stdin.end();
      child.once('exit', () =>
        answer.result.serverInfo.version === expected ? done(elapsed) : fail(new Error('the server did not get the secret')),
      );
    });
    child.on('error', fail);
    child.stdin.write(INITIALIZE);
  });
}

/** Pairs of starts, direct then through Loadout, after one untimed start of each (warm caches). */
async function measure(server) {
  const direct = () => firstAnswer(process.execPath, [server], { ...base, BENCH_TOKEN: SECRET });
  const through = () =>
    firstAnswer(process.execPath, [MAIN, 'mcp', 'run', 'bench', '--secret', 'BENCH_TOKEN=bench-token', '--', process.execPath, server], {
      ...base,
      LOADOUT_DATA_DIR: dataDir,
    });
  await direct();
  await through();
  const pairs = [];
  for (let run = 0; run < RUNS; run += 1) {
    const a = await direct();
    const b = await through();
    pairs.push({ direct: a, through: b, ratio: b / a });
  }
  return {
    directMs: round(median(pairs.map((pair) => pair.direct))),
    throughLoadoutMs: round(median(pairs.map((pair) => pair.through))),
    ratio: round(median(pairs.map((pair) => pair.ratio))),
  };
}

const sdk = await measure(sdkServer);
const plain = await measure(plainServer);
fs.rmSync(scratch, { recursive: true, force: true });
const targets = [
  target('a server started through `loadout mcp run` reaches its first answer ≤ 1.3× the same server started directly', sdk.ratio, 1.3),
];
process.stdout.write(`${JSON.stringify({ runs: RUNS, sdk, plain, targets }, null, 2)}\n`);
printTargets('mcp-run', targets);
