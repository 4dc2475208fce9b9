// Makes the bundle's V8 code cache (`<bundle>.v8cache`): compiles the bundle as the command does,
// runs a few representative commands in this one process on a scratch home and data folder (a
// session, an apply that writes nothing, the plugin list), so the functions a command compiles while
// it runs are in the cache too, then writes the cache beside the bundle (a temp file renamed over it),
// keyed to the bundle's path: a bundle moved elsewhere compiles from its text until this runs there.
// Usage: node warmCodeCache.mjs <bundle> <bundle's sha256>   (the bundle step, after each bundle)
//        node warmCodeCache.mjs --if-needed [<dist folder>]  (`pnpm build`, after every package)
// With --if-needed it reads which bundle the entry (dist/main.js) loads and makes its cache only
// when the one there was not made for it, here: a build Turborepo restored from its cache brings
// the cache of the checkout that first built it, which V8 must not be offered here ('moved'), and
// every command would compile the bundle from its text (~190 ms of each start on a 2-core VM).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { codeCacheUse, loadCachedScript, writeCodeCache } from '../dist/lib/loadCachedScript.js';

/** The bundle the entry in `dist` loads and its hash, as the bundle step wrote them into it. */
function bundleOfEntry(dist) {
  const entry = fs.readFileSync(path.join(dist, 'main.js'), 'utf8');
  const named = /\{ file: "(loadout-[0-9a-f]+\.cjs)", hash: "([0-9a-f]{64})" \}/.exec(entry);
  if (named === null) throw new Error(`${dist}/main.js names no bundle: was it built by scripts/bundle.mjs?`);
  return [path.join(dist, named[1]), named[2]];
}

const ifNeeded = process.argv[2] === '--if-needed';
const [bundle, bundleHash] = ifNeeded
  ? bundleOfEntry(path.resolve(process.argv[3] ?? path.join(import.meta.dirname, '../dist')))
  : process.argv.slice(2);
if (ifNeeded && codeCacheUse({ bundle, bundleHash, cache: `${bundle}.v8cache` }) === 'accepted') process.exit(0);
const repository = path.resolve(import.meta.dirname, '../../..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'loadout-code-cache-'));
try {
  // The shipped capabilities, as a fresh clone's command sees them; nothing of the caller's own.
  for (const name of Object.keys(process.env)) if (name.startsWith('LOADOUT_')) delete process.env[name];
  Object.assign(process.env, { HOME: scratch, LOADOUT_HOME: repository, LOADOUT_DATA_DIR: path.join(scratch, 'data') });
  const files = { bundle, bundleHash, cache: `${bundle}.v8cache` };
  const loaded = loadCachedScript(files);
  for (const args of [
    ['session', '--json'],
    ['apply', '--dry-run', '--json'],
    ['plugins', 'list', '--json'],
  ]) {
    await loaded.exports.runCli([process.execPath, bundle, ...args]);
    if (process.exitCode !== undefined && process.exitCode !== 0) throw new Error(`loadout ${args.join(' ')} exited ${process.exitCode}`);
  }
  if (!writeCodeCache(files, loaded.createCache())) throw new Error(`could not write ${files.cache}`);
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
