import { type ChildProcess, spawn } from 'node:child_process';
import { CLI_ENTRY } from '@loadout/cli/testing';

/** A token long enough for `LOADOUT_TOKEN`. */
export const HOSTILE_TOKEN = 'hostile-test-token-0123456789';

/** The built `loadout serve`, running as a child process. */
export interface BuiltServer {
  readonly child: ChildProcess;
  readonly port: number;
  readonly url: string;
  /** Everything it wrote on standard error so far. */
  stderr(): string;
}

const started: ChildProcess[] = [];

/** The environment a workspace's commands run with: nothing of the caller's leaks in. */
export function workspaceEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    LOADOUT_HOME: home,
    LOADOUT_TOKEN: HOSTILE_TOKEN,
    ...extra,
  };
}

/**
 * Spawns `loadout serve --port 0 --json` from the build and waits until it listens.
 *
 * @param launcher a command the server is started through (e.g. `unshare …`), given node's command line after its own
 */
export function serveBuilt(
  home: string,
  args: readonly string[] = [],
  extra: Record<string, string> = {},
  launcher: readonly string[] = [],
): Promise<BuiltServer> {
  const command = [...launcher, process.execPath, CLI_ENTRY, 'serve', '--port', '0', '--json', ...args];
  const child = spawn(command[0] as string, command.slice(1), { env: workspaceEnv(home, extra), stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`loadout serve did not start in 30 s: ${stderr}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      let described: { url: string };
      try {
        described = JSON.parse(stdout) as { url: string };
      } catch {
        return; // not the whole document yet
      }
      clearTimeout(timer);
      done({ child, url: described.url, port: Number(new URL(described.url).port), stderr: () => stderr });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`loadout serve exited with ${code}: ${stdout}${stderr}`));
    });
  });
}

/** Waits for a child to exit. */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => child.once('exit', () => done()));
}

/** Stops every server {@link serveBuilt} started in this test file: SIGTERM, SIGKILL after 10 s. */
export async function stopBuiltServers(): Promise<void> {
  for (const child of started.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const gone = exited(child);
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(timer);
  }
}
