// `pnpm bench [--strict] [name …]`: every benchmark (or those named), each in its own process so
// one's heap and caches do not colour another's. Prints each result, writes them to
// bench-results/<name>.json, and ends with every target met or not met; with --strict it exits 1
// when one is not met (a benchmark that fails exits 1 either way).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const here = import.meta.dirname;
const root = path.resolve(here, '../..');
const args = process.argv.slice(2);
const strict = args.includes('--strict');
const only = args.filter((arg) => !arg.startsWith('--'));
const benches = [
  { name: 'sessions', file: 'sessions.mjs', args: ['--expose-gc'] },
  { name: 'oneshot', file: 'oneshot.mjs', args: [] },
  { name: 'apply', file: 'apply.mjs', args: [] },
  { name: 'http', file: 'http.mjs', args: [] },
  { name: 'server', file: 'server.mjs', args: [] },
  { name: 'mcp', file: 'mcp.mjs', args: [] },
  { name: 'mcp-run', file: 'mcpRun.mjs', args: [] },
  { name: 'queue', file: 'queue.mjs', args: [] },
  { name: 'clones', file: 'clones.mjs', args: [] },
  { name: 'runtimes', file: 'runtimes.mjs', args: [] },
  { name: 'usage-hook', file: 'usageHook.mjs', args: [] },
  { name: 'budget', file: 'budget.mjs', args: [] },
  { name: 'usage', file: 'usage.mjs', args: [] },
].filter((bench) => (only.length === 0 || only.includes(bench.name)) && fs.existsSync(path.join(here, bench.file)));

fs.mkdirSync(path.join(root, 'bench-results'), { recursive: true });
let failed = false;
const targets = [];
for (const bench of benches) {
  process.stderr.write(`bench: ${bench.name}\n`);
  const run = spawnSync(process.execPath, [...bench.args, path.join(here, bench.file)], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (run.status !== 0) {
    failed = true;
    process.stderr.write(`bench: ${bench.name} failed (exit ${run.status})\n`);
    continue;
  }
  fs.writeFileSync(path.join(root, 'bench-results', `${bench.name}.json`), run.stdout);
  process.stdout.write(run.stdout);
  for (const t of JSON.parse(run.stdout).targets ?? []) targets.push({ bench: bench.name, ...t });
}
const missed = targets.filter((t) => !t.met);
process.stderr.write(`\nbench targets: ${targets.length - missed.length} met, ${missed.length} not met\n`);
for (const t of targets)
  process.stderr.write(
    `  ${t.met ? 'met    ' : 'NOT met'}  ${t.ratio}× (limit ${t.limit}×)  ${t.bench}: ${t.target}${t.note ? ` (${t.note})` : ''}\n`,
  );
process.exitCode = failed || (strict && missed.length > 0) ? 1 : 0;
