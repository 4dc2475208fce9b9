import { spawn } from 'node:child_process';
import { CLI_ENTRY } from '@loadout/cli/testing';

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the built `loadout` the way a user would, with only PATH from this process and `env`
 * besides, in `cwd` (this process's folder when absent); resolves with what it printed.
 */
export function spawnLoadout(args: readonly string[], env: Record<string, string>, cwd?: string): Promise<CliRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI_ENTRY, ...args], {
      ...(cwd === undefined ? {} : { cwd }),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
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
