import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLI_ENTRY } from '@loadout/cli/testing';
import { testdir, type TreeDescription } from '@loadout/files/testing';

/**
 * What the hostile end-to-end tests of the kernel, stores, state, levels, database and tasks
 * share: the built `loadout` run as a user runs it (with a deadline, so a hang fails the test
 * instead of stalling the run), `loadout serve` in its own process, FIFOs, and a second local
 * user for permission cases.
 */

/** A skill folder's SKILL.md. */
export const skill = (name: string, description = `${name} does one thing.`): string =>
  `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}\n---\nUse it when asked.\n`;

/** A task folder with a shell implementation. */
export const task = (name: string, script = 'echo ran\n'): TreeDescription => ({
  'TASK.md': `---\nname: ${name}\ndescription: ${name} task\nimplementation: run.sh\n---\nSteps.\n`,
  'run.sh': script,
});

/**
 * A workspace: `capabilities/`, `plugins/` and a project folder with its `.agents`. It is also the
 * HOME, of a machine with Claude Code and Codex installed (their home folders), so `apply` finds them.
 */
export function workspace(tree: { capabilities?: TreeDescription; project?: TreeDescription } = {}) {
  const home = testdir({
    capabilities: tree.capabilities ?? {},
    plugins: {},
    project: { '.agents': tree.project ?? {} },
    '.claude': {},
    '.codex': {},
  });
  return { home, project: path.join(home, 'project'), dataDir: path.join(home, '.loadout') };
}

export interface Run {
  /** Null when the command was killed at its deadline. */
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  json<T = Record<string, unknown>>(): T;
}

export interface RunOptions {
  readonly env?: Record<string, string>;
  /** Killed after this long: a hang is a failure with a status of null. Default 20 s. */
  readonly timeoutMs?: number;
  /** Run as this user (see {@link anotherUser}). */
  readonly user?: { readonly uid: number; readonly gid: number } | null;
}

/** Runs the built `loadout <args>` in a workspace, with nothing of the caller's environment. */
export function loadout(home: string, args: readonly string[], options: RunOptions = {}): Run {
  if (options.user !== undefined && options.user !== null) letOthersReach(CLI_ENTRY);
  const result = spawnSync(process.execPath, [CLI_ENTRY, ...args], {
    cwd: home,
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 20_000,
    killSignal: 'SIGKILL',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', LOADOUT_HOME: home, ...options.env },
    ...(options.user === undefined || options.user === null ? {} : options.user),
  });
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    json<T>() {
      return JSON.parse(result.stdout) as T;
    },
  };
}

/** A git repository holding `tree`, for `loadout plugins install`. */
export function pluginRepo(tree: TreeDescription, links: Record<string, string> = {}): string {
  const dir = testdir(tree);
  for (const [link, target] of Object.entries(links)) fs.symlinkSync(target, path.join(dir, link));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=Test', '-c', 'user.email=test@loadout.invalid', 'commit', '-q', '-m', 'plugin');
  return dir;
}

const children: ChildProcess[] = [];

/** Makes a FIFO. Nothing ever writes to it: a reader that waits for a writer waits for ever. */
export function fifo(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  execFileSync('mkfifo', [file]);
}

export interface Served {
  readonly child: ChildProcess;
  readonly port: number;
  readonly token: string;
}

/**
 * Starts `loadout serve --port 0` in its own process and waits until it listens. Its token is a
 * known `LOADOUT_TOKEN`, or with `tokenFile` the one it makes in the data folder.
 */
export function serve(home: string, options: { tokenFile?: boolean } = {}): Promise<Served> {
  const known = 'hostile-token-0123456789abcdef';
  const child = spawn(process.execPath, [CLI_ENTRY, 'serve', '--port', '0', '--json'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      LANG: 'C.UTF-8',
      LOADOUT_HOME: home,
      ...(options.tokenFile === true ? {} : { LOADOUT_TOKEN: known }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((done, fail) => {
    let out = '';
    child.stdout?.on('data', (data: Buffer) => {
      out += data.toString();
      try {
        const described = JSON.parse(out) as { url: string; token: { file?: string } };
        const token = described.token.file === undefined ? known : fs.readFileSync(described.token.file, 'utf8').trim();
        done({ child, port: Number(new URL(described.url).port), token });
      } catch {
        // not the whole document yet
      }
    });
    child.once('exit', (code) => fail(new Error(`serve exited ${code}: ${out}`)));
  });
}

/** Kills every process {@link serve} started that is still running. Call it from `afterEach`. */
export async function stopServers(): Promise<void> {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGKILL');
    await new Promise((done) => child.once('exit', done));
  }
}

/** Resolves with how `child` ended, or with null when it is still running after `ms`. */
export function exitWithin(child: ChildProcess, ms: number): Promise<{ code: number | null; signal: string | null } | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((done) => {
    const timer = setTimeout(() => done(null), ms);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal });
    });
  });
}

/** A GET on the server with the token, given up after `timeoutMs` (then it rejects). */
export async function get(served: Served, url: string, timeoutMs = 10_000): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`http://127.0.0.1:${served.port}${url}`, {
    headers: { authorization: `Bearer ${served.token}` },
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

const NOBODY = { uid: 65534, gid: 65534 };

/**
 * A second local user for permission cases, and `target` made unreadable to them. Run as root,
 * the workspace is handed to `nobody` and `target` kept root's with no permissions; run as anyone
 * else, `target` loses its owner's permissions and the commands run as that same user. Returns
 * the user to pass to {@link loadout}, and a function that gives `target` its permissions back.
 */
export function unreadableTo(home: string, target: string): { user: { uid: number; gid: number } | null; restore: () => void } {
  const mode = fs.statSync(target).mode & 0o777;
  if (process.getuid?.() === 0) {
    chownTree(home, NOBODY.uid, NOBODY.gid);
    fs.chmodSync(home, 0o755);
    fs.chownSync(target, 0, 0);
    fs.chmodSync(target, 0);
    return { user: NOBODY, restore: () => fs.chmodSync(target, mode) };
  }
  fs.chmodSync(target, 0);
  return { user: null, restore: () => fs.chmodSync(target, mode) };
}

/**
 * Gives others search permission (x, never read) on each folder above `file` that lacks it, so
 * `nobody` can run the built CLI from a checkout made in a private folder (`mktemp -d` is 0700).
 * Left in place: other test files may be running as `nobody` at the same moment.
 */
function letOthersReach(file: string): void {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const mode = fs.statSync(dir).mode & 0o777;
    if ((mode & 0o001) === 0) fs.chmodSync(dir, mode | 0o001);
    if (path.dirname(dir) === dir) return;
  }
}

function chownTree(dir: string, uid: number, gid: number): void {
  fs.lchownSync(dir, uid, gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(full, uid, gid);
    else fs.lchownSync(full, uid, gid);
  }
}
