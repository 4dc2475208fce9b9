// Checks the workspace's package graph: no import cycles between packages, the kernel imports no
// other workspace package, and a store imports only the kernel (and the database).
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const packagesDir = path.join(root, 'packages');
const STORES = new Set(['skills', 'affordances', 'notifications', 'servers', 'tasks']);
const graph = new Map();
const problems = [];

for (const name of fs.readdirSync(packagesDir)) {
  const manifest = path.join(packagesDir, name, 'package.json');
  if (!fs.existsSync(manifest)) continue;
  const deps = Object.keys(JSON.parse(fs.readFileSync(manifest, 'utf8')).dependencies ?? {})
    .filter((dep) => dep.startsWith('@loadout/'))
    .map((dep) => dep.slice('@loadout/'.length));
  graph.set(name, deps);
  const src = path.join(packagesDir, name, 'src');
  for (const file of walk(src)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/from\s+['"]@loadout\/([a-z-]+)/g)) {
      if (!deps.includes(match[1]) && match[1] !== name) {
        problems.push(`${path.relative(root, file)} imports @loadout/${match[1]}, which ${name}'s package.json does not list`);
      }
    }
  }
}
for (const [name, deps] of graph) {
  if (name === 'kernel' && deps.length > 0) problems.push(`kernel must not depend on ${deps.join(', ')}`);
  if (STORES.has(name)) {
    const extra = deps.filter((dep) => dep !== 'kernel' && dep !== 'db');
    if (extra.length > 0) problems.push(`store ${name} depends on ${extra.join(', ')}; a store depends on the kernel only`);
  }
}
const state = new Map();
const visit = (name, trail) => {
  if (state.get(name) === 'done') return;
  if (state.get(name) === 'active') {
    problems.push(`import cycle: ${[...trail.slice(trail.indexOf(name)), name].join(' -> ')}`);
    return;
  }
  state.set(name, 'active');
  for (const dep of graph.get(name) ?? []) visit(dep, [...trail, name]);
  state.set(name, 'done');
};
for (const name of graph.keys()) visit(name, []);

if (problems.length > 0) {
  for (const problem of problems) console.error(`check-imports: ${problem}`);
  process.exit(1);
}
console.log(`check-imports: ${graph.size} packages, no cycles`);

function* walk(dir) {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (/\.(ts|mjs|js)$/.test(entry.name)) yield full;
  }
}
