// Makes the bundle's V8 code cache (`<bundle>.v8cache`): compiles the bundle as the command does,
// runs a few representative commands in this one process on a scratch home and data folder (a
// session, an apply that writes nothing, the plugin list), so the functions a command compiles while
// it runs are in the cache too, then writes the cache beside the bundle (a temp file renamed over it),
// keyed to the bundle's path: a bundle moved elsewhere compiles from its text until this runs there.
// Usage: node warmCodeCache.mjs <bundle> <bundle's sha256>
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadCachedScript, writeCodeCache } from '../dist/lib/loadCachedScript.js';

const [bundle, bundleHash] = process.argv.slice(2);
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
