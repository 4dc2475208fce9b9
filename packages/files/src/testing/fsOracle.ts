// A test's witness of what code did to the file system, independent of the ReadLog it checks.
//
// It replaces every `fs` function that takes a path, every `node:child_process` starter and
// `process.stderr.write` for as long as it watches, and puts them back when stopped. That is the
// shape Loadout's own code no longer uses (nothing in any package's src patches Node's modules):
// here, in tests only, it is the point. What it sees is held against what a ReadLog was told, so
// a read the code made around `trackedFs` fails a test instead of leaving a proof unsound.
import childProcess from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the oracle saw while it watched. */
export interface FsOracle {
  /** Every path (absolute, normal) an `fs` function was handed, a copy's or rename's other end too. */
  readonly touched: ReadonlySet<string>;
  /** The `child_process` functions called, in order. */
  readonly started: readonly string[];
  /** How many writes went to stderr. */
  readonly stderrWrites: number;
  /** Puts everything back as it was; idempotent. */
  stop(): void;
}

type AnyFunction = (...args: unknown[]) => unknown;

/** Functions of `fs` whose first argument is no path (descriptors, classes, constants). */
const NOT_PATHS =
  /^(f[a-z]|read$|readSync$|readv|write$|writeSync$|writev|close|Dirent|Stats|Dir$|ReadStream|WriteStream|constants|promises|_)/;
const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

function absolute(raw: unknown): string | null {
  if (typeof raw === 'string') return path.resolve(raw);
  if (raw instanceof URL && raw.protocol === 'file:') return fileURLToPath(raw);
  if (Buffer.isBuffer(raw)) return path.resolve(raw.toString());
  return null;
}

/** Starts watching `fs`, `child_process` and stderr, process-wide, until {@link FsOracle.stop}. */
export function watchFs(): FsOracle {
  const touched = new Set<string>();
  const started: string[] = [];
  let stderrWrites = 0;
  const restore: (() => void)[] = [];
  const replace = (holder: object, name: string, before: (args: unknown[]) => void): void => {
    const functions = holder as Record<string, unknown>;
    const original = functions[name];
    if (typeof original !== 'function') return;
    const watched = (...args: unknown[]): unknown => {
      before(args);
      return Reflect.apply(original as AnyFunction, holder, args);
    };
    Object.assign(watched, original);
    functions[name] = watched;
    restore.push(() => {
      functions[name] = original;
    });
  };
  const note = (raw: unknown): void => {
    const file = absolute(raw);
    if (file !== null) touched.add(file);
  };
  const paths = (name: string) => (args: unknown[]) => {
    note(args[0]);
    if (/^(rename|copyFile|cp|link|symlink)/.test(name)) note(args[1]);
  };
  for (const name of Object.keys(fs)) if (/^[a-z]/.test(name) && !NOT_PATHS.test(name)) replace(fs, name, paths(name));
  replace(fs.realpathSync, 'native', paths('realpathSync.native'));
  for (const name of Object.keys(fs.promises)) replace(fs.promises, name, paths(name));
  for (const name of STARTERS) replace(childProcess, name, () => started.push(name));
  replace(process.stderr, 'write', () => {
    stderrWrites += 1;
  });
  return {
    touched,
    started,
    get stderrWrites() {
      return stderrWrites;
    },
    stop: () => {
      for (const undo of restore.splice(0).reverse()) undo();
    },
  };
}
