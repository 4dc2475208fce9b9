import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseProof } from '../applyProof.js';

/** The built `loadout` entry point; tests run the real command as a user would. */
export const CLI_ENTRY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/main.js');

export interface CliRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as JSON (throws when it is not exactly one JSON document). */
  json<T = unknown>(): T;
}

/** Runs `loadout <args>` in a workspace: LOADOUT_HOME is `home`, nothing from the caller's env leaks in. */
export function runCli(home: string, args: readonly string[], env: Record<string, string> = {}, cwd = home): CliRun {
  const result = spawnSync(process.execPath, [CLI_ENTRY, ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LOADOUT_HOME: home, ...env },
    timeout: 60_000,
  });
  return {
    status: result.status ?? -1,
    stdout: result.stdout,
    stderr: result.stderr,
    json<T>() {
      return JSON.parse(result.stdout) as T;
    },
  };
}

/** The paths a kept `apply` proof holds (each stamped, each folder a real path was found through); throws when it is no proof. */
export function pathsInProof(file: string): Set<string> {
  const proof = parseProof(fs.readFileSync(file, 'utf8'));
  if (proof === null) throw new Error(`${file} is no apply proof`);
  return new Set(proof.stamps.map(([looked]) => looked));
}
