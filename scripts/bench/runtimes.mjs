// Applying one loadout into ten runtimes against applying it into two.
//
// The owner's capabilities hold 300 skills and 20 MCP servers (stdio and Streamable HTTP). Each
// timed run is `loadout apply` into a fresh HOME whose runtimes' own folders exist (so every
// runtime is set up there) and a fresh data folder: the skills copied into every skills folder the
// runtimes read, the servers written into each runtime's MCP file.
//
// - `two`: `--runtime claude-code --runtime codex`
// - `ten`: those two and gemini-cli, opencode, copilot-cli, qwen-code, amp, cursor, windsurf, crush
// - `again`: the same apply once more in the same HOME, nothing to change (ten, then two)
//
// Skills are planned per physical folder, not per runtime: most runtimes read `~/.agents/skills`,
// so ten runtimes add server files, not skill copies. Runs interleave two and ten, so the machine's
// drift colours both alike; nothing is deleted until the end (see apply.mjs on ext4 deletes).
//
// Each run is checked, not trusted: the apply exits 0 and every runtime's MCP file holds the 20
// servers. Prints one JSON document and one line per target on stderr.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median, now, round } from './makeWorkspace.mjs';
import { printTargets, target } from './targets.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(root, 'packages/cli/dist/main.js');
const SKILLS = Number(process.env.BENCH_RUNTIMES_SKILLS ?? 300);
const SERVERS = Number(process.env.BENCH_RUNTIMES_SERVERS ?? 20);
const RUNS = Number(process.env.BENCH_RUNTIMES_RUNS ?? 5);
const TWO = ['claude-code', 'codex'];
const TEN = [...TWO, 'gemini-cli', 'opencode', 'copilot-cli', 'qwen-code', 'amp', 'cursor', 'windsurf', 'crush'];

/** Each runtime's own folder (present: the runtime is set up) and the MCP file the servers land in. */
const RUNTIME_FILES = {
  'claude-code': { folder: '.claude', file: '.claude.json', key: 'mcpServers' },
  codex: { folder: '.codex', file: '.codex/config.toml', key: null },
  'gemini-cli': { folder: '.gemini', file: '.gemini/settings.json', key: 'mcpServers' },
  opencode: { folder: '.config/opencode', file: '.config/opencode/opencode.json', key: 'mcp' },
  'copilot-cli': { folder: '.copilot', file: '.copilot/mcp-config.json', key: 'mcpServers' },
  'qwen-code': { folder: '.qwen', file: '.qwen/settings.json', key: 'mcpServers' },
  amp: { folder: '.config/amp', file: '.config/amp/settings.json', key: 'amp.mcpServers' },
  cursor: { folder: '.cursor', file: '.cursor/mcp.json', key: 'mcpServers' },
  windsurf: { folder: '.codeium/windsurf', file: '.codeium/windsurf/mcp_config.json', key: 'mcpServers' },
  crush: { folder: '.config/crush', file: '.config/crush/crush.json', key: 'mcp' },
};

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'loadout-bench-runtimes-'));
const capabilities = path.join(scratch, 'capabilities');
for (let index = 0; index < SKILLS; index += 1) {
  const name = `bench-skill-${String(index).padStart(3, '0')}`;
  fs.mkdirSync(path.join(capabilities, 'skills', name), { recursive: true });
  fs.writeFileSync(
    path.join(capabilities, 'skills', name, 'SKILL.md'),
    `---\nname: ${name}\ndescription: Benchmark skill ${index}; does nothing but take up room in a realistic way.\n---\n# ${name}\n\n${'Step by step instructions for the agent. '.repeat(20)}\n`,
  );
}
fs.mkdirSync(path.join(capabilities, 'servers'), { recursive: true });
for (let index = 0; index < SERVERS; index += 1) {
  const definition =
    index % 4 === 3
      ? { url: `https://mcp${index}.example.com/mcp`, headers: { Authorization: 'Bearer ${BENCH_TOKEN}' } }
      : { command: 'node', args: [`server-${index}.js`], env: { LEVEL: 'info' } };
  fs.writeFileSync(
    path.join(capabilities, 'servers', `server-${String(index).padStart(2, '0')}.json`),
    `${JSON.stringify({ name: `Server ${index}`, ...definition }, null, 2)}\n`,
  );
}
spawnSync('git', ['init', '-q'], { cwd: capabilities });

let runCount = 0;
/** A fresh HOME where every runtime of `names` is set up, and a fresh data folder. */
function freshMachine(names) {
  runCount += 1;
  const home = path.join(scratch, `home-${runCount}`);
  for (const name of names) fs.mkdirSync(path.join(home, RUNTIME_FILES[name].folder), { recursive: true });
  return { home, data: path.join(home, '.loadout-data') };
}

function apply(machine, names) {
  const started = now();
  const run = spawnSync(process.execPath, [MAIN, 'apply', ...names.flatMap((name) => ['--runtime', name])], {
    cwd: scratch,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: machine.home,
      LANG: 'C.UTF-8',
      LOADOUT_HOME: scratch,
      LOADOUT_CAPABILITIES_DIR: capabilities,
      LOADOUT_DATA_DIR: machine.data,
    },
  });
  const ms = now() - started;
  if (run.status !== 0) throw new Error(`apply into ${names.join(', ')} failed (exit ${run.status}): ${run.stderr.slice(-2000)}`);
  return ms;
}

/** Every runtime's MCP file holds the servers; the shared skills folder holds the skills. */
function check(machine, names) {
  for (const name of names) {
    const { file, key } = RUNTIME_FILES[name];
    const text = fs.readFileSync(path.join(machine.home, file), 'utf8');
    const count =
      key === null ? (text.match(/^\[mcp_servers\.[^.\]]+\]$/gm) ?? []).length : Object.keys(JSON.parse(text)[key] ?? {}).length;
    if (count !== SERVERS) throw new Error(`${name}: ${file} holds ${count} servers, not ${SERVERS}`);
  }
  const skills = fs.readdirSync(path.join(machine.home, '.agents', 'skills')).filter((name) => name.startsWith('bench-skill-')).length;
  if (skills !== SKILLS) throw new Error(`~/.agents/skills holds ${skills} skills, not ${SKILLS}`);
}

// One untimed run each first: the page cache and the compiled code are warm for both sides alike.
for (const names of [TWO, TEN]) apply(freshMachine(names), names);

const runs = { two: [], ten: [], againTwo: [], againTen: [] };
for (let run = 0; run < RUNS; run += 1) {
  for (const [key, names] of [
    ['two', TWO],
    ['ten', TEN],
  ]) {
    const machine = freshMachine(names);
    runs[key].push(apply(machine, names));
    check(machine, names);
    runs[key === 'two' ? 'againTwo' : 'againTen'].push(apply(machine, names));
  }
}
fs.rmSync(scratch, { recursive: true, force: true });

const figures = Object.fromEntries(
  Object.entries(runs).map(([key, values]) => [key, { medianMs: round(median(values)), runs: values.map(round) }]),
);
const targets = [
  target(
    `apply of ${SKILLS} skills and ${SERVERS} servers into ten runtimes ≤ 2× into two`,
    figures.ten.medianMs / figures.two.medianMs,
    2,
  ),
  target('the same apply again, nothing to change: ten runtimes ≤ 2× two', figures.againTen.medianMs / figures.againTwo.medianMs, 2),
];
process.stdout.write(
  `${JSON.stringify({ bench: 'runtimes', skills: SKILLS, servers: SERVERS, runtimes: { two: TWO, ten: TEN }, figures, targets }, null, 2)}\n`,
);
printTargets('runtimes', targets);
