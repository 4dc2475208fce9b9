import { spawn as untrackedSpawn } from 'node:child_process';
import path from 'node:path';
import { redactCredentials } from '@loadout/kernel';
import type { SimpleGit } from 'simple-git';
import { PluginGitError, PluginInputRefusedError, PluginRepositoryRefusedError } from './PluginErrors.js';
import { spoilsReads, trackedFs } from '@loadout/files';

/** Starts a process; a ReadLog cannot follow what it reads, so it spoils the current one. */
const spawn = spoilsReads('a child process', untrackedSpawn);

/**
 * Stops every git command this process started when the process is told to stop (SIGTERM, SIGINT,
 * SIGHUP): git is a child of its own, so without this a killed `loadout plugins install` would
 * leave git cloning on. Listening only while git runs, so the process's own handling of those
 * signals is untouched otherwise; when nothing else listens, the signal is given back to the
 * process, which then ends the way it would have.
 */
const stopping = new AbortController();
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
let running = 0;

function onStopSignal(signal: NodeJS.Signals): void {
  stopping.abort();
  for (const name of STOP_SIGNALS) process.removeListener(name, onStopSignal);
  running = 0;
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

async function whileRunning<T>(work: () => Promise<T>): Promise<T> {
  if (running++ === 0) for (const name of STOP_SIGNALS) process.on(name, onStopSignal);
  try {
    return await work();
  } finally {
    if (running > 0 && --running === 0) for (const name of STOP_SIGNALS) process.removeListener(name, onStopSignal);
  }
}

/**
 * A URL's `user:password@` taken out and turned into what git sends for it (an HTTP
 * `Authorization` header), so the URL git is given, and keeps in the clone's config as the
 * origin, holds no credential.
 */
export interface GitCredential {
  /** The URL without its user information. */
  readonly url: string;
  /** `http.extraHeader` for this one command: `Authorization: Basic …`. */
  readonly header: string;
}

/** Splits the credential out of an https URL; null when it holds none (ssh keeps its user: it names an account). */
export function splitCredential(url: string): GitCredential | null {
  if (!/^https:\/\//i.test(url)) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.username === '' && parsed.password === '') return null;
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.href, header: `Authorization: Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

/** How long git may stay silent before it is stopped. Rolling: any output resets it. */
export const DEFAULT_GIT_TIMEOUT_MS = 120_000;

export interface PluginGitOptions {
  /** Let git use the `file` transport: only when the URL in play is a file URL. */
  readonly allowFileProtocol: boolean;
  readonly timeoutMs?: number;
  /** The environment to pick the few passed-through variables from; usually `process.env`. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Settings given with `-c` on every git command, whatever the repository's or the user's config
 * says: plugin repositories are untrusted, so no hook, fsmonitor, submodule or transport other
 * than the four allowed may ever run.
 */
function hardenedConfig(allowFileProtocol: boolean): string[] {
  return [
    'core.hooksPath=/dev/null',
    'core.fsmonitor=false',
    'submodule.recurse=false',
    'fetch.recurseSubmodules=false',
    'protocol.allow=never',
    'protocol.https.allow=always',
    'protocol.ssh.allow=always',
    'protocol.git.allow=always',
    `protocol.file.allow=${allowFileProtocol ? 'always' : 'never'}`,
    'protocol.ext.allow=never',
    'transfer.fsckObjects=true',
    'advice.detachedHead=false',
  ];
}

/** Variables git legitimately needs from the user's environment; every `GIT_*` one is left out. */
const PASSED_THROUGH = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'TMPDIR',
  'XDG_CONFIG_HOME',
  'SSH_AUTH_SOCK',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
];

/**
 * glibc's malloc, left to itself, gives the top of its heap back to the system whenever a free
 * leaves more than a moving threshold there, and asks for it again at the next allocation. git
 * packing, indexing and checking out objects does that round trip once per object (zlib's state
 * is a few hundred KiB), and each one costs page faults and, on a VM, a TLB flush: 55% of cloning a
 * 300-skill repository here (320 ms with it, 140 ms without, neither checking out). A fixed trim threshold ends the round
 * trips and nothing else: git's memory still peaks where it did, and is all given back at its exit.
 * Other C libraries ignore the variable.
 */
export const GIT_MALLOC_TUNABLE = 'glibc.malloc.trim_threshold=16777216';

/** The user's own glibc tunables with {@link GIT_MALLOC_TUNABLE} added, unless they set that one themselves. */
export function gitMallocTunables(own: string | undefined): string {
  if (own === undefined || own === '') return GIT_MALLOC_TUNABLE;
  const name = GIT_MALLOC_TUNABLE.slice(0, GIT_MALLOC_TUNABLE.indexOf('=') + 1);
  if (own.split(':').some((entry) => entry.startsWith(name))) return own;
  return `${own}:${GIT_MALLOC_TUNABLE}`;
}

/** The environment git runs with: no prompt of any kind, ssh in batch mode, English messages. */
export function gitEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = env[name];
    if (value !== undefined) result[name] = value;
  }
  result.GLIBC_TUNABLES = gitMallocTunables(env.GLIBC_TUNABLES);
  result.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  result.LC_ALL = 'C';
  result.GIT_TERMINAL_PROMPT = '0';
  // An empty GIT_ASKPASS stops git from falling back to core.askPass or SSH_ASKPASS.
  result.GIT_ASKPASS = '';
  result.GIT_SSH_COMMAND = 'ssh -o BatchMode=yes';
  return result;
}

/**
 * The git commands the plugin lifecycle needs, run through simple-git with hooks, fsmonitor and
 * submodules off, a restricted protocol list, no prompts, a timeout and a clean environment.
 * Every failure becomes a {@link PluginGitError} whose message holds no credential.
 */
export class PluginGit {
  /** simple-git, loaded with the first git command: commands that run no git never evaluate it. */
  private git: Promise<SimpleGit> | null = null;
  /** The same, for {@link LOCAL_READS}: done when git's output closes, with no timer after its exit. */
  private localGit: Promise<SimpleGit> | null = null;

  /** Whether git may use the `file` transport here (the clone's origin is a file URL). */
  readonly allowFileProtocol: boolean;

  constructor(
    readonly dir: string,
    options: PluginGitOptions,
  ) {
    this.allowFileProtocol = options.allowFileProtocol;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
    this.environment = gitEnvironment(options.env);
  }

  private readonly environment: Record<string, string>;
  private readonly timeoutMs: number;

  private client(what: string): Promise<SimpleGit> {
    if (LOCAL_READS.has(what)) {
      this.localGit ??= this.makeClient({ onClose: true, onExit: false });
      return this.localGit;
    }
    this.git ??= this.makeClient({ onClose: true, onExit: 50 });
    return this.git;
  }

  private makeClient(completion: { readonly onClose: boolean; readonly onExit: number | false }): Promise<SimpleGit> {
    return import('simple-git').then(({ simpleGit }) =>
      simpleGit({
        baseDir: this.dir,
        completion,
        config: hardenedConfig(this.allowFileProtocol),
        timeout: { block: this.timeoutMs },
        allowEnvironment: [
          'GIT_TERMINAL_PROMPT',
          'GIT_ASKPASS',
          'GIT_SSH_COMMAND',
          'GIT_CONFIG_COUNT',
          'GIT_CONFIG_KEY_0',
          'GIT_CONFIG_VALUE_0',
        ],
        abort: stopping.signal,
        // Only what the settings above need; each one is given a fixed value here, never user input.
        unsafe: {
          allowUnsafeHooksPath: true,
          allowUnsafeFsMonitor: true,
          allowUnsafeProtocolOverride: true,
          allowUnsafeAskPass: true,
          allowUnsafeSshCommand: true,
          // Set only by clone, to `http.extraHeader` with the URL's own credential.
          allowUnsafeConfigEnvCount: true,
        },
      }).env(this.environment),
    );
  }

  /**
   * Clones `url` into `target` (an empty folder), one branch, no submodules. A password or token
   * in an https URL is given to git for this command only, in its environment (which other users
   * cannot read, unlike its arguments), never written to disk: the clone's origin is the URL
   * without it. The clone's config is the owner's alone (0600) all the same.
   *
   * Not `--quiet`: git's one line "Cloning into '…'..." (dropped from any error, see
   * {@link translateGitError}) is what tells simple-git the process spoke; after a command that
   * wrote nothing at all it waits another 50 ms before taking it as done.
   */
  async clone(url: string, target: string, ref: string | null): Promise<void> {
    const args = ['clone', '--no-recurse-submodules', '--single-branch', '--no-progress'];
    if (ref !== null) args.push('--branch', ref);
    const credential = splitCredential(url);
    if (credential === null) {
      await this.run('clone', [...args, '--', url, target]);
    } else {
      const env = {
        ...this.environment,
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'http.extraHeader',
        GIT_CONFIG_VALUE_0: credential.header,
      };
      await this.run('clone', [...args, '--', credential.url, target], env);
    }
    trackedFs.chmodSync(path.join(target, '.git', 'config'), 0o600);
  }

  /** The commit `branch` is at on origin, asked without fetching or writing anything; null when origin has no such branch. */
  async remoteBranchCommit(branch: string): Promise<string | null> {
    const out = await this.run('ls-remote', ['ls-remote', '--quiet', 'origin', `refs/heads/${branch}`]);
    return /^([0-9a-f]{40,64})\t/.exec(out)?.[1] ?? null;
  }

  /** The full commit id `rev` names. */
  async commitOf(rev: string): Promise<string> {
    const out = (await this.run('rev-parse', ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`])).trim();
    if (!/^[0-9a-f]{40,64}$/.test(out)) throw new PluginGitError('PLUGIN_GIT_FAILED', `git cannot find ${rev} in ${this.dir}`);
    return out;
  }

  /**
   * The commit HEAD is at and the checked-out branch (null when HEAD is detached: a tag was
   * installed), asked of one git process instead of two.
   */
  async head(): Promise<{ readonly commit: string; readonly branch: string | null }> {
    const [commit = '', name = ''] = (await this.run('rev-parse', ['rev-parse', 'HEAD^{commit}', '--symbolic-full-name', 'HEAD']))
      .trim()
      .split('\n');
    if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new PluginGitError('PLUGIN_GIT_FAILED', `git cannot find HEAD in ${this.dir}`);
    return { commit, branch: name.startsWith('refs/heads/') ? name.slice('refs/heads/'.length) : null };
  }

  /** The checked-out branch, or null when HEAD is detached (a tag was installed). */
  async currentBranch(): Promise<string | null> {
    const out = (await this.run('symbolic-ref', ['symbolic-ref', '--quiet', '--short', 'HEAD'])).trim();
    return out === '' ? null : out;
  }

  /** The URL of `origin` as the clone stores it. */
  async originUrl(): Promise<string> {
    const out = (await this.run('remote', ['remote', 'get-url', 'origin'])).trim();
    if (out === '') throw new PluginGitError('PLUGIN_GIT_FAILED', `${this.dir} has no origin remote`);
    return out;
  }

  /** Paths with local changes, untracked files included; empty when the work tree is clean. */
  async changedPaths(): Promise<string[]> {
    const out = await this.run('status', ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=none']);
    return out
      .split('\0')
      .filter((entry) => entry.length > 3)
      .map((entry) => entry.slice(3));
  }

  /** Fetches `branch` from origin into `refs/remotes/origin/<branch>`. */
  async fetchBranch(branch: string): Promise<void> {
    await this.run('fetch', [
      'fetch',
      '--quiet',
      '--no-recurse-submodules',
      '--no-tags',
      'origin',
      `+refs/heads/${branch}:refs/remotes/origin/${branch}`,
    ]);
  }

  /** The best common ancestor of two commits, or null when they share no history. */
  async mergeBase(a: string, b: string): Promise<string | null> {
    const out = (await this.run('merge-base', ['merge-base', a, b])).trim();
    return out === '' ? null : out;
  }

  /** Moves the checked-out branch forward to `commit`; git refuses anything but a fast-forward. */
  async fastForward(commit: string): Promise<void> {
    await this.run('merge', ['merge', '--ff-only', '--quiet', commit]);
  }

  /** Whether the clone holds `commit`. A git that timed out or was stopped is an error, not a no. */
  async hasCommit(commit: string): Promise<boolean> {
    try {
      await this.run('cat-file', ['cat-file', '-e', `${commit}^{commit}`]);
      return true;
    } catch (error) {
      if (isGitAnswer(error)) return false;
      throw error;
    }
  }

  /** Fetches one commit by its id from origin (for a commit no branch of the clone holds). */
  async fetchCommit(commit: string): Promise<void> {
    await this.run('fetch', ['fetch', '--quiet', '--no-recurse-submodules', '--no-tags', 'origin', commit]);
  }

  /** Checks out `commit` with no branch: the clone is held there. */
  async checkoutDetached(commit: string): Promise<void> {
    await this.run('checkout', ['checkout', '--quiet', '--no-recurse-submodules', '--detach', commit]);
  }

  /** Points `branch` at `commit` and checks it out; its upstream stays, so update can follow it later. */
  async checkoutBranchAt(branch: string, commit: string): Promise<void> {
    await this.run('checkout', ['checkout', '--quiet', '--no-recurse-submodules', '-B', branch, commit]);
  }

  /** How many commits `to` has that `from` does not. */
  async countCommits(from: string, to: string): Promise<number> {
    return Number.parseInt((await this.run('rev-list', ['rev-list', '--count', `${from}..${to}`])).trim(), 10);
  }

  /** The files that differ between two commits, relative to the repository's root (no rename detection: both names count). */
  async changedFiles(from: string, to: string): Promise<string[]> {
    const out = await this.run('diff', [
      'diff',
      '--name-only',
      '-z',
      '--no-renames',
      '--no-ext-diff',
      '--no-textconv',
      '--end-of-options',
      from,
      to,
    ]);
    return out.split('\0').filter((entry) => entry !== '');
  }

  /** How many commits `to` has that `from` does not and that touch one of `paths` (relative to the root, `''` for all of it). */
  async countCommitsTouching(from: string, to: string, paths: readonly string[]): Promise<number> {
    const specs = paths.map((p) => (p === '' ? '.' : p));
    const out = await this.run('rev-list', ['--literal-pathspecs', 'rev-list', '--count', `${from}..${to}`, '--', ...specs]);
    return Number.parseInt(out.trim(), 10);
  }

  /** Whether the tree of `commit` holds a submodule (a gitlink or a `.gitmodules` file). */
  async hasSubmodules(commit: string): Promise<boolean> {
    const out = await this.run('ls-tree', ['ls-tree', '-r', '-z', '--full-tree', commit]);
    return out.split('\0').some((line) => line.startsWith('160000 ') || /\t\.gitmodules$/.test(line));
  }

  /** Whether `dir` lies in a git work tree. A git that timed out or was stopped is an error, not a no. */
  async isInsideWorkTree(): Promise<boolean> {
    try {
      return (await this.run('rev-parse', ['rev-parse', '--is-inside-work-tree'])).trim() === 'true';
    } catch (error) {
      if (isGitAnswer(error)) return false;
      throw error;
    }
  }

  /** Files under `dir` that git does not track and does not ignore, relative to `dir`. */
  async untrackedFiles(): Promise<string[]> {
    const out = await this.run('ls-files', ['ls-files', '--others', '--exclude-standard', '-z', '--', '.']);
    return out.split('\0').filter((entry) => entry !== '');
  }

  /**
   * The changes from `from` to the work tree's HEAD, limited to `paths` (relative to `dir`), as a
   * unified diff. No external diff program and no text conversion: the repository is data; and
   * every path is taken literally, so a file named like a pathspec magic (`:(exclude)…`) is a name.
   */
  /**
   * The unified diff of `paths` from `from` to HEAD, at most `maxBytes` of it: git runs on its own
   * (not through simple-git, which would hold all it prints) and is stopped once that much is read,
   * so an update of hundreds of megabytes costs no more than the bound.
   */
  async diffSince(from: string, paths: readonly string[], maxBytes: number): Promise<{ text: string; truncated: boolean }> {
    if (paths.length === 0) return { text: '', truncated: false };
    const args = [
      '--literal-pathspecs',
      'diff',
      '--no-ext-diff',
      '--no-textconv',
      '--no-color',
      '--end-of-options',
      from,
      'HEAD',
      '--',
      ...paths,
    ];
    if (stopping.signal.aborted) throw new PluginGitError('PLUGIN_GIT_STOPPED', 'git diff was not started: Loadout is stopping');
    const config = hardenedConfig(this.allowFileProtocol).flatMap((setting) => ['-c', setting]);
    return whileRunning(
      () =>
        new Promise((done, fail) => {
          const git = spawn('git', [...config, ...args], {
            cwd: this.dir,
            env: this.environment,
            stdio: ['ignore', 'pipe', 'pipe'],
            signal: stopping.signal,
            timeout: this.timeoutMs,
          });
          const chunks: Buffer[] = [];
          let read = 0;
          let truncated = false;
          let stderr = '';
          git.stdout.on('data', (chunk: Buffer) => {
            if (truncated) return;
            const room = maxBytes - read;
            chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
            read += Math.min(room, chunk.length);
            if (chunk.length >= room) {
              truncated = true;
              git.kill('SIGKILL');
            }
          });
          git.stderr.on('data', (chunk: Buffer) => (stderr = `${stderr}${chunk.toString()}`.slice(-4000)));
          git.once('error', (error) =>
            fail(new PluginGitError('PLUGIN_GIT_FAILED', `git diff could not run (${redactCredentials(error.message)})`, { cause: error })),
          );
          git.once('close', (code, signal) => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (truncated) done({ text: text.slice(0, text.lastIndexOf('\n') + 1), truncated: true });
            else if (code === 0) done({ text, truncated: false });
            else if (signal !== null) fail(new PluginGitError('PLUGIN_GIT_TIMEOUT', `git diff timed out or was stopped (${signal})`));
            else
              fail(
                new PluginGitError('PLUGIN_GIT_FAILED', `git diff failed: ${redactCredentials(stderr.trim().split('\n').at(-1) ?? '')}`),
              );
          });
        }),
    );
  }

  private async run(what: string, args: string[], env?: Record<string, string>): Promise<string> {
    if (stopping.signal.aborted) throw new PluginGitError('PLUGIN_GIT_STOPPED', `git ${what} was not started: Loadout is stopping`);
    try {
      return await whileRunning(async () => {
        const git = await this.client(what);
        if (env === undefined) return await git.raw(args);
        git.env(env);
        try {
          return await git.raw(args);
        } finally {
          git.env(this.environment);
        }
      });
    } catch (error) {
      throw translateGitError(what, error, (await import('simple-git')).GitPluginError);
    }
  }
}

/**
 * Commands that only read the clone: they reach no remote, so no credential helper, ssh or
 * daemon of theirs can keep git's output open after git exits, and simple-git can take a command
 * as done when its output closes. For the others it also takes one as done 50 ms after git exits
 * (a credential-cache daemon may hold git's stderr for minutes), and that timer, left running
 * whenever the output closed first, kept the command line alive up to 50 ms after its last
 * git command. A read whose output never closed would end as a timeout, never as a short answer.
 */
const LOCAL_READS: ReadonlySet<string> = new Set([
  'rev-parse',
  'ls-tree',
  'symbolic-ref',
  'remote',
  'status',
  'merge-base',
  'rev-list',
  'ls-files',
  'diff',
]);

/** Whether a failed git command answered (a plain failure), rather than being stopped or timing out. */
function isGitAnswer(error: unknown): boolean {
  return error instanceof PluginGitError && error.code === 'PLUGIN_GIT_FAILED';
}

/** The line `git clone` starts with unless `--quiet`. */
const CLONING_INTO = /^Cloning into '.*'\.\.\.$/;

function translateGitError(what: string, error: unknown, GitPluginError: typeof import('simple-git').GitPluginError): Error {
  if (error instanceof GitPluginError) {
    if (error.plugin === 'timeout') {
      return new PluginGitError('PLUGIN_GIT_TIMEOUT', `git ${what} timed out: no progress within the time limit`, { cause: error });
    }
    if (error.plugin === 'abort')
      return new PluginGitError('PLUGIN_GIT_STOPPED', `git ${what} was stopped: Loadout is stopping`, { cause: error });
    if (error.plugin === 'unsafe' || error.plugin === 'allowEnvironment') {
      return new PluginInputRefusedError('PLUGIN_GIT_REFUSED', `git ${what} was refused: ${redactCredentials(error.message)}`);
    }
  }
  const raw = error instanceof Error ? error.message : String(error);
  const lines = raw
    .split('\n')
    .map((line) => line.trim())
    // A clone's first line names the staging folder it clones into; the reason comes after it.
    .filter((line) => line !== '' && !(what === 'clone' && CLONING_INTO.test(line)));
  // transfer.fsckObjects found content git itself considers dangerous (e.g. a submodule update command).
  const fsck = lines.map((line) => /^error: object [0-9a-f]+: (\w+: .*)$/.exec(line)?.[1]).find((found) => found !== undefined);
  if (fsck !== undefined) {
    return new PluginRepositoryRefusedError(
      'PLUGIN_REPOSITORY_UNSAFE',
      `git ${what} refused the repository's content: ${redactCredentials(fsck).slice(0, 300)}`,
    );
  }
  const detail = redactCredentials(lines.slice(0, 3).join(' ')).slice(0, 500);
  return new PluginGitError('PLUGIN_GIT_FAILED', `git ${what} failed: ${detail === '' ? 'no message' : detail}`);
}
