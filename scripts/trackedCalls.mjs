// What scripts/track-fs-calls.mjs rewrites and scripts/check-reads.mjs holds: the source files
// whose file-system calls a ReadLog must hear (see packages/files/src/ReadLog.ts), the `fs`
// functions `trackedFs` offers, and the ones nothing there may call.
import fs from 'node:fs';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '..');
const packagesDir = path.join(root, 'packages');

/** Packages that never run in a Loadout process: the browser screen, the whole-system tests. */
const OUTSIDE = new Set(['web', 'e2e']);

/** Why the small entry (dist/main.js) calls `fs` itself: it runs before the command line loads, where no action and no log are. */
const SMALL_ENTRY =
  'in dist/main.js, before the command line loads: no action runs there, and @loadout/files would load with every command';

/**
 * Files that call `fs` itself on purpose, each with why. The facade and the proof's own stamping
 * must not tell the log what they do (a stamp is no look of the run's).
 */
export const UNTRACKED_FILES = new Map([
  ['packages/files/src/ReadLog.ts', 'the facade itself: it calls fs after telling the log'],
  ['packages/cli/src/applyProof.ts', "the proof's stamps and its check: no look of a run"],
  ['packages/cli/src/ApplyProofRecorder.ts', 'stamps what the log was told and writes the proof after the run stopped'],
  ['packages/cli/src/main.ts', SMALL_ENTRY],
  ['packages/cli/src/loadCachedScript.ts', SMALL_ENTRY],
  ['packages/cli/src/mcpRun.ts', `${SMALL_ENTRY} (\`loadout mcp run\` is a process of its own, never an apply)`],
  ['packages/cli/src/version.ts', SMALL_ENTRY],
  ['packages/servers/src/secretFile.ts', `${SMALL_ENTRY}; the secret store in the command line hands it trackedFs's read`],
]);

/** Production TypeScript sources of every package that runs in a Loadout process (tests and testing entries aside). */
export function trackedSources() {
  const files = [];
  for (const name of fs.readdirSync(packagesDir).sort()) {
    if (OUTSIDE.has(name)) continue;
    const src = path.join(packagesDir, name, 'src');
    if (!fs.existsSync(src)) continue;
    for (const entry of fs.readdirSync(src, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = path.join(entry.parentPath ?? entry.path, entry.name);
      const inSrc = path.relative(src, file);
      if (!/\.ts$/.test(entry.name) || /\.(test|d)\.ts$/.test(entry.name) || inSrc.split(path.sep).includes('testing')) continue;
      files.push(path.relative(root, file));
    }
  }
  return files.sort();
}

/** The names `trackedFs` offers, read from its declaration so the two never disagree. */
export function trackedFsNames() {
  const text = fs.readFileSync(path.join(root, 'packages/files/src/ReadLog.ts'), 'utf8');
  const body = /export const trackedFs = \{([\s\S]*?)\n\};/.exec(text);
  if (body === null) throw new Error('packages/files/src/ReadLog.ts declares no trackedFs');
  return [...body[1].matchAll(/^ {2}(\w+):/gm)].map((match) => match[1]);
}

/** `fs` functions that take a path and have no tracked form: callback, promise and stream forms, watches. */
export const UNTRACKED_FS = [
  'access',
  'appendFile',
  'chmod',
  'copyFile',
  'cp',
  'createReadStream',
  'createWriteStream',
  'exists',
  'lchown',
  'link',
  'lstat',
  'lutimes',
  'mkdir',
  'mkdtemp',
  'open',
  'opendir',
  'promises',
  'readdir',
  'readFile',
  'readlink',
  'realpath',
  'rename',
  'rm',
  'rmdir',
  'stat',
  'statfs',
  'statfsSync',
  'symlink',
  'truncate',
  'unlink',
  'utimes',
  'watch',
  'watchFile',
  'writeFile',
  'chownSync',
  'lchownSync',
  'lutimesSync',
];

/** The `node:child_process` functions that start a process. */
export const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'];

/** The local name a starter is imported under before `spoilsReads` wraps it. */
export const untrackedName = (starter) => `untracked${starter[0].toUpperCase()}${starter.slice(1)}`;
