// Checks the workspace's package graph: no import cycles between packages, the kernel imports no
// other workspace package, and a store imports only the kernel (and the database and api contracts).
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const packagesDir = path.join(root, 'packages');
const STORES = new Set(['skills', 'affordances', 'notifications', 'servers', 'tasks']);
/** The contract packages a store may build on: the kernel, the database, and the faces' contribution points. */
const STORE_MAY_USE = new Set(['kernel', 'db', 'api']);
const graph = new Map();
const problems = [];

for (const name of fs.readdirSync(packagesDir)) {
  const manifest = path.join(packagesDir, name, 'package.json');
  if (!fs.existsSync(manifest)) continue;
  const json = JSON.parse(fs.readFileSync(manifest, 'utf8'));
  const ours = (list) => Object.keys(list ?? {}).filter((dep) => dep.startsWith('@loadout/')).map((dep) => dep.slice('@loadout/'.length));
  const deps = ours(json.dependencies);
  const devDeps = ours(json.devDependencies);
  graph.set(name, deps);
  for (const folder of ['src', 'test']) {
    for (const file of walk(path.join(packagesDir, name, folder))) {
      // Tests and test fixtures may use what the package lists for development too.
      const forTests = folder === 'test' || /\.test\.ts$/.test(file) || file.includes(`${path.sep}testing${path.sep}`);
      const allowed = forTests ? [...deps, ...devDeps] : deps;
      const text = fs.readFileSync(file, 'utf8');
      for (const match of text.matchAll(/from\s+['"]@loadout\/([a-z0-9-]+)/g)) {
        if (!allowed.includes(match[1]) && match[1] !== name) {
          problems.push(`${path.relative(root, file)} imports @loadout/${match[1]}, which ${name}'s package.json does not list${forTests ? '' : ' as a dependency'}`);
        }
      }
    }
  }
}
for (const [name, deps] of graph) {
  if (name === 'kernel' && deps.length > 0) problems.push(`kernel must not depend on ${deps.join(', ')}`);
  if (STORES.has(name)) {
    const extra = deps.filter((dep) => !STORE_MAY_USE.has(dep));
    if (extra.length > 0) problems.push(`store ${name} depends on ${extra.join(', ')}; a store depends on the kernel (and the database and api contracts) only`);
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
