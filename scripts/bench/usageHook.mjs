// The usage hook as a runtime runs it: the exact command line `apply` writes (node, the hook
// program, the usage folder, the runtime), through `sh -c`, a Claude Code PostToolUse event on
// stdin, from start to exit; each run paired with `sh -c "node -e ''"` given the same stdin (the
// baseline), so both see the same machine. Issue 36: ≤ 1.5× `node -e ''`, an agent must never wait
// on Loadout.
//
// Figures:
// - `recordedMs`: a Skill call, appended to the spool (the hook turned on).
// - `notRecordedMs`: a tool the hook records nothing for.
// - `offMs`: the hook left in place after `loadout usage hook off` (reads the consent, records nothing).
//
// Prints one JSON document and one line per target on stderr.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exited, median, now, round } from './makeWorkspace.mjs';
import { printTargets, target } from './targets.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const PROGRAM = path.join(root, 'packages/usage-hook/usage-hook.mjs');
const PAYLOADS = path.join(root, 'packages/usage-hook/test/payloads');
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'loadout-bench-usage-hook-'));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch, LANG: 'C.UTF-8' };

/** Runs `sh -c command` with `input` on stdin to its exit; fails the benchmark on a non-zero status. */
async function run(command, input) {
  const started = now();
  const child = spawn('/bin/sh', ['-c', command], { env, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.on('error', () => undefined);
  child.stdin.end(input);
  await exited(child);
  const ms = now() - started;
  if (child.exitCode !== 0 || stderr !== '') throw new Error(`${command} exited ${child.exitCode}: ${stderr}`);
  return ms;
}

/** The median of RUNS timings of `command`, each paired with a baseline run recorded in `baseline`. */
async function measure(command, input, baseline) {
  await run(command, input);
  const runs = [];
  for (let i = 0; i < RUNS; i += 1) {
    baseline.push(await run(`${process.execPath} -e ''`, input));
    runs.push(await run(command, input));
  }
  return median(runs);
}

const usageDir = path.join(scratch, 'usage');
const consent = (runtimes) => {
  fs.mkdirSync(usageDir, { recursive: true });
  fs.writeFileSync(path.join(usageDir, 'hook.json'), JSON.stringify({ version: 1, runtimes }));
};
const command = `${process.execPath} ${PROGRAM} ${usageDir} claude-code`;
const skill = fs.readFileSync(path.join(PAYLOADS, 'claude-code.post-tool-use.skill.json'));
const bash = fs.readFileSync(path.join(PAYLOADS, 'claude-code.post-tool-use.bash.json'));
try {
  const baseline = [];
  consent(['claude-code']);
  const recordedMs = await measure(command, skill, baseline);
  const notRecordedMs = await measure(command, bash, baseline);
  const lines = fs
    .readFileSync(path.join(usageDir, 'spool', 'claude-code.jsonl'), 'utf8')
    .trimEnd()
    .split('\n').length;
  consent([]);
  const offMs = await measure(command, skill, baseline);
  const spawnNodeMs = median(baseline);
  const result = {
    benchmark: 'usage-hook',
    runs: RUNS,
    baseline: { spawnNodeMs: round(spawnNodeMs) },
    figures: { recordedMs: round(recordedMs), notRecordedMs: round(notRecordedMs), offMs: round(offMs), spoolLines: lines },
    cores: os.cpus().length,
  };
  result.targets = [
    target("usage hook recording a Skill call ≤ 1.5× node -e ''", recordedMs / spawnNodeMs, 1.5, {
      holds: lines === RUNS + 1,
      note: `${lines} spool lines for ${RUNS + 1} recorded runs`,
    }),
    target("usage hook on a tool it does not record ≤ 1.5× node -e ''", notRecordedMs / spawnNodeMs, 1.5),
    target("usage hook turned off ≤ 1.5× node -e ''", offMs / spawnNodeMs, 1.5),
  ];
  printTargets('usage-hook', result.targets);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
