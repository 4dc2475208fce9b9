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
//
// The planner ranks Claude Code's listing by each skill's last use from the usage ledger. A second
// data folder holds 1,000 recorded uses of 500 skills (taken in by `loadout usage` before the
// runs); the budget over it is run interleaved with the budget over the empty ledger, so reading
// and ranking by the ledger is measured against not having one, on the same machine.
//
// `loadout usage --json` plans the listing when it is asked (its `listed`): it is timed over the
// same workspace, and narrowed to a runtime no planner knows (`--runtime loadout-cli`, so nothing
// is planned) to show the planner's share. BENCH_BUDGET_BASELINE_CLI names another build's
// `packages/cli/dist/main.js` (the branch point, say): its `loadout budget --json` is run in the
// same rounds and the ratio reported, so a change is measured against what it changed.
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
const USES = 1_000;
const BASELINE = process.env.BENCH_BUDGET_BASELINE_CLI ?? null;
const usedData = path.join(scratch, 'data-used');

/** `USES` uses by Claude Code of every 20th skill, as its hook spools them, the latest first in the skills' order; answers how many skills were used. */
function spoolUses() {
  const spool = path.join(usedData, 'usage', 'spool');
  fs.mkdirSync(spool, { recursive: true });
  const lines = [];
  for (let i = 0; i < USES; i += 1) {
    const name = `bench-skill-${String((i * 20) % SKILLS).padStart(5, '0')}`;
    const at = new Date(Date.now() - (i + 1) * 60_000).toISOString();
    lines.push(
      JSON.stringify({ v: 1, at, runtime: 'claude-code', project: null, kind: 'skill', name, event: 'invoked', session: `s${i % 40}` }),
    );
  }
  fs.writeFileSync(path.join(spool, 'bench.jsonl'), `${lines.join('\n')}\n`);
  return new Set(lines.map((line) => JSON.parse(line).name)).size;
}

/** Runs the built `loadout` with `args` to its exit; answers the time taken and the parsed output. */
function loadout(args, extraEnv = {}, main = MAIN) {
  const started = now();
  const run = spawnSync(process.execPath, [main, ...args], {
    cwd: scratch,
    encoding: 'utf8',
    env: { ...env, ...extraEnv },
    maxBuffer: 1024 * 1024 * 1024,
  });
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

/**
 * The ranked budget: the ledger's uses reached the planner (each used skill carries its last use).
 * Over 10,000 skills even the bare names are past Claude Code's budget, so no entry is described
 * either way: this measures reading and ranking, not a different listing.
 */
function checkRanked(output) {
  const claude = output.runtimes.find((runtime) => runtime.runtime === 'claude-code');
  const used = claude?.listing.entries?.filter((entry) => typeof entry.lastUsed === 'number').length ?? 0;
  if (used !== usedSkills)
    throw new Error(`the ledger's uses did not reach the planner: ${used} of ${usedSkills} used skills carry their last use`);
}

const usedSkills = spoolUses();
loadout(['usage', '--json'], { LOADOUT_DATA_DIR: usedData });

// One untimed run each first: the page cache and the compiled code are warm for both sides alike.
let summary = check(loadout(['budget', '--json']).output);
checkRanked(loadout(['budget', '--json'], { LOADOUT_DATA_DIR: usedData }).output);
loadout(['session', '--json']);
loadout(['usage', '--json']);
if (BASELINE !== null) check(loadout(['budget', '--json'], {}, BASELINE).output);

const runs = {
  budget: [],
  budgetWithLedger: [],
  session: [],
  usage: [],
  usageUnplanned: [],
  ...(BASELINE === null ? {} : { baseline: [] }),
};
for (let run = 0; run < RUNS; run += 1) {
  const budget = loadout(['budget', '--json']);
  summary = check(budget.output);
  runs.budget.push(budget.ms);
  const ranked = loadout(['budget', '--json'], { LOADOUT_DATA_DIR: usedData });
  checkRanked(ranked.output);
  runs.budgetWithLedger.push(ranked.ms);
  runs.session.push(loadout(['session', '--json']).ms);
  runs.usage.push(loadout(['usage', '--json']).ms);
  runs.usageUnplanned.push(loadout(['usage', '--runtime', 'loadout-cli', '--json']).ms);
  if (BASELINE !== null) {
    const baseline = loadout(['budget', '--json'], {}, BASELINE);
    check(baseline.output);
    runs.baseline.push(baseline.ms);
  }
}
fs.rmSync(scratch, { recursive: true, force: true });

const figures = {
  budget: round(median(runs.budget)),
  budgetWithLedger: round(median(runs.budgetWithLedger)),
  session: round(median(runs.session)),
  usage: round(median(runs.usage)),
  usageUnplanned: round(median(runs.usageUnplanned)),
  ...(BASELINE === null ? {} : { baseline: round(median(runs.baseline)) }),
};
const targets = [
  target(`loadout budget over ${SKILLS.toLocaleString('en-US')} skills ≤ 2× loadout session --json`, figures.budget / figures.session, 2),
  // Reading 1,000 uses and ranking by them is one query and a sort: within the runs' noise.
  target(
    `loadout budget with ${USES.toLocaleString('en-US')} uses in the ledger ≤ 1.1× with an empty ledger`,
    figures.budgetWithLedger / figures.budget,
    1.1,
  ),
  ...(BASELINE === null
    ? []
    : [target('loadout budget ≤ 1.1× the baseline build’s (BENCH_BUDGET_BASELINE_CLI)', figures.budget / figures.baseline, 1.1)]),
];
printTargets('budget', targets);
process.stdout.write(
  `${JSON.stringify({ bench: 'budget', skills: SKILLS, runs: RUNS, medianMs: figures, runsMs: runs, claudeCode: summary, targets }, null, 2)}\n`,
);
