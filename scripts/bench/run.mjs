// `pnpm bench`: every benchmark, each in its own process so one's heap and caches do not colour
// another's. Prints each result and writes them to bench-results/<name>.json.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const here = import.meta.dirname;
const root = path.resolve(here, '../..');
const only = process.argv.slice(2);
const benches = [
  { name: 'sessions', file: 'sessions.mjs', args: ['--expose-gc'] },
  { name: 'server', file: 'server.mjs', args: [] },
  { name: 'mcp', file: 'mcp.mjs', args: [] },
].filter((bench) => (only.length === 0 || only.includes(bench.name)) && fs.existsSync(path.join(here, bench.file)));

fs.mkdirSync(path.join(root, 'bench-results'), { recursive: true });
let failed = false;
for (const bench of benches) {
  process.stderr.write(`bench: ${bench.name}\n`);
  const run = spawnSync(process.execPath, [...bench.args, path.join(here, bench.file)], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (run.status !== 0) {
    failed = true;
    process.stderr.write(`bench: ${bench.name} failed (exit ${run.status})\n`);
    continue;
  }
  fs.writeFileSync(path.join(root, 'bench-results', `${bench.name}.json`), run.stdout);
  process.stdout.write(run.stdout);
}
process.exitCode = failed ? 1 : 0;
