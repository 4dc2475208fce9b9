// The listing-budget planner at scale: `loadout budget --json` over 10,000 skills against
// `loadout session --json` over the same workspace, run by run interleaved so both see the same
// machine (issue 36: at most 2×).
//
// The owner's capabilities hold 10,000 skills whose descriptions run from a dozen characters to
// past Codex's 1,024-character cap, so both measured runtimes are far over their budgets and the
// planner does its whole work: every runtime planned as `apply --dry-run` plans it (nothing
// written), every description read, Claude Code's ranking and Codex's character-by-character
// sharing. HOME is a scratch folder where Claude Code and Codex are set up.
//
// Each run is checked, not trusted: the budget exits 0 and lists the 10,000 skills for Claude Code,
// over its budget; the session exits 0. Prints one JSON document and one line per target on stderr.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median, now, round } from './makeWorkspace.mjs';
import { printTargets, target } from './targets.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(root, 'packages/cli/dist/main.js');
const SKILLS = Number(process.env.BENCH_BUDGET_SKILLS ?? 10_000);
const RUNS = Number(process.env.BENCH_BUDGET_RUNS ?? 5);
const LENGTHS = [12, 40, 90, 200, 450, 800, 1_024, 1_100];

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'loadout-bench-budget-'));
const capabilities = path.join(scratch, 'capabilities');
const home = path.join(scratch, 'home');
for (const folder of ['.claude', '.codex']) fs.mkdirSync(path.join(home, folder), { recursive: true });
for (let index = 0; index < SKILLS; index += 1) {
  const name = `bench-skill-${String(index).padStart(5, '0')}`;
  const length = LENGTHS[index % LENGTHS.length];
  const description = `Benchmark skill ${index} ${'takes up room in the listing '.repeat(40)}`.slice(0, length).trim();
  fs.mkdirSync(path.join(capabilities, 'skills', name), { recursive: true });
  fs.writeFileSync(
    path.join(capabilities, 'skills', name, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`,
  );
}
spawnSync('git', ['init', '-q'], { cwd: capabilities });

const env = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  LANG: 'C.UTF-8',
  LOADOUT_HOME: scratch,
  LOADOUT_CAPABILITIES_DIR: capabilities,
  LOADOUT_DATA_DIR: path.join(scratch, 'data'),
};

/** Runs the built `loadout` with `args` to its exit; answers the time taken and the parsed output. */
function loadout(args) {
  const started = now();
  const run = spawnSync(process.execPath, [MAIN, ...args], { cwd: scratch, encoding: 'utf8', env, maxBuffer: 1024 * 1024 * 1024 });
  const ms = now() - started;
  if (run.status !== 0) throw new Error(`loadout ${args.join(' ')} failed (exit ${run.status}): ${run.stderr.slice(-2000)}`);
  return { ms, output: JSON.parse(run.stdout) };
}

/** The budget lists every skill for Claude Code, over its budget. */
function check(output) {
  const claude = output.runtimes.find((runtime) => runtime.runtime === 'claude-code');
  if (claude?.listing.observed !== true) throw new Error('no Claude Code listing in the budget');
  if (claude.listing.entries.length !== SKILLS) throw new Error(`Claude Code lists ${claude.listing.entries.length} skills, not ${SKILLS}`);
  if (claude.listing.over <= 0) throw new Error('Claude Code is not over its budget: the bench would not measure the cut');
  return claude.summary;
}

// One untimed run each first: the page cache and the compiled code are warm for both sides alike.
let summary = check(loadout(['budget', '--json']).output);
loadout(['session', '--json']);

const runs = { budget: [], session: [] };
for (let run = 0; run < RUNS; run += 1) {
  const budget = loadout(['budget', '--json']);
  summary = check(budget.output);
  runs.budget.push(budget.ms);
  runs.session.push(loadout(['session', '--json']).ms);
}
fs.rmSync(scratch, { recursive: true, force: true });

const figures = { budget: round(median(runs.budget)), session: round(median(runs.session)) };
const targets = [
  target(`loadout budget over ${SKILLS.toLocaleString('en-US')} skills ≤ 2× loadout session --json`, figures.budget / figures.session, 2),
];
printTargets('budget', targets);
process.stdout.write(
  `${JSON.stringify({ bench: 'budget', skills: SKILLS, runs: RUNS, medianMs: figures, runsMs: runs, claudeCode: summary, targets }, null, 2)}\n`,
);
