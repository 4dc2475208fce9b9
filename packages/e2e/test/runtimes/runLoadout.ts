import { spawn } from 'node:child_process';
import { CLI_ENTRY } from '@loadout/cli/testing';
import type { Machine } from '@loadout/runtimes/testing';

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the built `loadout` the way a user would, with HOME and the runtimes' folders in the temp
 * folder, and `env` besides.
 */
export function runLoadout(m: Machine, args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI_ENTRY, ...args], {
      cwd: m.base,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ...m.env,
        LOADOUT_HOME: m.places.home,
        LOADOUT_CAPABILITIES_DIR: m.places.capabilitiesDir,
        LOADOUT_DATA_DIR: m.places.dataDir,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
