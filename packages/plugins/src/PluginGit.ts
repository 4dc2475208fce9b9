import { redactCredentials } from '@loadout/kernel';
import { GitPluginError, type SimpleGit, simpleGit } from 'simple-git';
import { PluginGitError, PluginInputRefusedError, PluginRepositoryRefusedError } from './PluginErrors.js';

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

/** The environment git runs with: no prompt of any kind, ssh in batch mode, English messages. */
export function gitEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = env[name];
    if (value !== undefined) result[name] = value;
  }
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
  private readonly git: SimpleGit;

  constructor(
    readonly dir: string,
    options: PluginGitOptions,
  ) {
    this.git = simpleGit({
      baseDir: dir,
      config: hardenedConfig(options.allowFileProtocol),
      timeout: { block: options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS },
      allowEnvironment: ['GIT_TERMINAL_PROMPT', 'GIT_ASKPASS', 'GIT_SSH_COMMAND'],
      // Only what the settings above need; each one is given a fixed value here, never user input.
      unsafe: {
        allowUnsafeHooksPath: true,
        allowUnsafeFsMonitor: true,
        allowUnsafeProtocolOverride: true,
        allowUnsafeAskPass: true,
        allowUnsafeSshCommand: true,
      },
    }).env(gitEnvironment(options.env));
  }

  /** Clones `url` into `target` (an empty folder), one branch, no submodules. */
  async clone(url: string, target: string, ref: string | null): Promise<void> {
    const args = ['clone', '--no-recurse-submodules', '--single-branch', '--quiet'];
    if (ref !== null) args.push('--branch', ref);
    await this.run('clone', [...args, '--', url, target]);
  }

  /** The full commit id `rev` names. */
  async commitOf(rev: string): Promise<string> {
    const out = (await this.run('rev-parse', ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`])).trim();
    if (!/^[0-9a-f]{40,64}$/.test(out)) throw new PluginGitError('PLUGIN_GIT_FAILED', `git cannot find ${rev} in ${this.dir}`);
    return out;
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
    await this.run('fetch', ['fetch', '--quiet', '--no-recurse-submodules', '--no-tags', 'origin', `+refs/heads/${branch}:refs/remotes/origin/${branch}`]);
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

  /** Whether the clone holds `commit`. */
  async hasCommit(commit: string): Promise<boolean> {
    try {
      await this.run('cat-file', ['cat-file', '-e', `${commit}^{commit}`]);
      return true;
    } catch {
      return false;
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

  /** Whether the tree of `commit` holds a submodule (a gitlink or a `.gitmodules` file). */
  async hasSubmodules(commit: string): Promise<boolean> {
    const out = await this.run('ls-tree', ['ls-tree', '-r', '-z', '--full-tree', commit]);
    return out.split('\0').some((line) => line.startsWith('160000 ') || /\t\.gitmodules$/.test(line));
  }

  /** Whether `dir` lies in a git work tree. */
  async isInsideWorkTree(): Promise<boolean> {
    try {
      return (await this.run('rev-parse', ['rev-parse', '--is-inside-work-tree'])).trim() === 'true';
    } catch {
      return false;
    }
  }

  /** Files under `dir` that git does not track and does not ignore, relative to `dir`. */
  async untrackedFiles(): Promise<string[]> {
    const out = await this.run('ls-files', ['ls-files', '--others', '--exclude-standard', '-z', '--', '.']);
    return out.split('\0').filter((entry) => entry !== '');
  }

  private async run(what: string, args: string[]): Promise<string> {
    try {
      return await this.git.raw(args);
    } catch (error) {
      throw translateGitError(what, error);
    }
  }
}

function translateGitError(what: string, error: unknown): Error {
  if (error instanceof GitPluginError) {
    if (error.plugin === 'timeout') {
      return new PluginGitError('PLUGIN_GIT_TIMEOUT', `git ${what} was stopped: no progress within the time limit`, { cause: error });
    }
    if (error.plugin === 'unsafe' || error.plugin === 'allowEnvironment') {
      return new PluginInputRefusedError('PLUGIN_GIT_REFUSED', `git ${what} was refused: ${redactCredentials(error.message)}`);
    }
  }
  const raw = error instanceof Error ? error.message : String(error);
  const lines = raw
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
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
