// @ts-check
// Preloaded (`node --import`) into a `loadout apply` that applyProof.test.ts runs: notes every
// path a `fs` function is asked about from the moment the process starts, and writes them, one a
// line, to the file LOADOUT_TEST_READ_TRACE names when the process exits. It lives in the tests
// only and watches the process from outside Loadout's code, so what it sees can be held against
// what the proof says the run depended on: a look the proof missed fails the test instead of
// letting `apply` answer from a proof that no longer holds. A process the run starts is noted as
// `started: <function>`, which no proof holds: a run that starts one must keep none.
// The default export is the very object `require('node:fs')` returns, which Loadout's bundle reads.
import childProcess from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const traceFile = process.env.LOADOUT_TEST_READ_TRACE;
/** @type {Set<string>} */
const looked = new Set();
// Taken before anything is wrapped: the trace is written with them, and never traces itself.
const { openSync, writeSync, closeSync } = fs;

/** @param {unknown} raw */
function note(raw) {
  if (typeof raw === 'string') looked.add(path.resolve(raw));
  else if (raw instanceof URL && raw.protocol === 'file:') looked.add(fileURLToPath(raw));
  else if (Buffer.isBuffer(raw)) looked.add(path.resolve(raw.toString()));
}

/**
 * @param {Record<string, unknown>} holder
 * @param {string} name
 */
function trace(holder, name) {
  const original = holder[name];
  if (typeof original !== 'function') return;
  /** @type {(...args: unknown[]) => unknown} */
  const traced = function (...args) {
    note(args[0]);
    // Both ends of a copy, a rename or a link are looked at.
    if (/^(rename|copyFile|cp|link|symlink)/.test(name)) note(args[1]);
    return Reflect.apply(original, holder, args);
  };
  Object.assign(traced, original);
  holder[name] = traced;
}

const functions = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (fs));
for (const name of Object.keys(fs)) {
  // Calls on descriptors name no path; the trace's own writes are not the run's.
  if (!/^[a-z]/.test(name) || /^(f[a-z]|read$|readSync$|readv|write$|writeSync$|writev|close|Dirent|Stats)/.test(name)) continue;
  trace(functions, name);
}
trace(/** @type {Record<string, unknown>} */ (/** @type {unknown} */ (fs.realpathSync)), 'native');
const promises = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (fs.promises));
for (const name of Object.keys(fs.promises)) trace(promises, name);

const starters = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (childProcess));
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
  const original = starters[name];
  if (typeof original !== 'function') continue;
  /** @type {(...args: unknown[]) => unknown} */
  const traced = function (...args) {
    looked.add(`started: ${name}`);
    return Reflect.apply(original, childProcess, args);
  };
  starters[name] = traced;
}

process.on('exit', () => {
  if (traceFile === undefined || traceFile === '') return;
  const descriptor = openSync(traceFile, 'w');
  try {
    writeSync(descriptor, [...looked].sort().join('\n'));
  } finally {
    closeSync(descriptor);
  }
});
