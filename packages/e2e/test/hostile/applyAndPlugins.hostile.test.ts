import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI_ENTRY } from '@loadout/cli/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { stallingGit } from '@loadout/plugins/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { exitWithin, loadout, pluginRepo, skill, workspace } from './coreSupport.js';

/**
 * `loadout apply` and `loadout plugins` against hostile folders and killed runs, through the
 * built command line (issue 11: 3, 10, 14, 16, 18, 21, 24).
 */

const E2E_PACKAGE = fileURLToPath(new URL('../../', import.meta.url));
const started: ChildProcess[] = [];
const strayPids: number[] = [];

afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const pid of strayPids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  removeTestdirs();
});

const env = (home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  LANG: 'C.UTF-8',
  LOADOUT_HOME: home,
  ...extra,
});

/** Starts the built `loadout <args>` without waiting for it. */
function start(home: string, args: readonly string[], extra: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, [CLI_ENTRY, ...args], { cwd: home, env: env(home, extra), stdio: 'ignore' });
  started.push(child);
  return child;
}

/** Resolves once `file` exists (written by a stalled git), with its content. */
async function waitForFile(file: string, ms = 15_000): Promise<string> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (fs.existsSync(file) && fs.readFileSync(file, 'utf8').trim() !== '') return fs.readFileSync(file, 'utf8').trim();
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`${file} never appeared`);
}

function alive(pid: number): boolean {
  try {
    const state = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return state !== undefined && state !== 'Z';
  } catch {
    return false;
  }
}

const staged = (home: string): string[] => fs.readdirSync(path.join(home, 'plugins')).filter((name) => name.startsWith('.tmp-'));
const gitIn = (dir: string, ...args: string[]): string => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

interface ApplyJson {
  ok: boolean;
  retired: { name: string }[];
  runtimes: { runtime: string; findings: { code: string; message: string }[] }[];
}
const codes = (result: ApplyJson, code: string) =>
  result.runtimes.flatMap((part) =>
    part.findings.filter((finding) => finding.code === code).map((finding) => ({ runtime: part.runtime, message: finding.message })),
  );

describe('loadout apply against hostile runtime folders', () => {
  it('3 a committed .claude/skills link out of the project is a refused root: exit 1, nothing written through it', () => {
    const ws = workspace({
      capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } },
      project: { skills: { deploy: { 'SKILL.md': skill('deploy') } } },
    });
    fs.mkdirSync(path.join(ws.home, '.claude', 'skills'), { recursive: true });
    fs.mkdirSync(path.join(ws.project, '.claude'));
    fs.symlinkSync(path.join(ws.home, '.claude', 'skills'), path.join(ws.project, '.claude', 'skills'));
    const run = loadout(ws.home, ['apply', '--project', ws.project, '--json']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('RUNTIME_ROOT_OUTSIDE');
    const refused = codes(run.json<ApplyJson>(), 'RUNTIME_ROOT_OUTSIDE');
    expect(refused.map((finding) => finding.runtime)).toEqual(['claude-code']);
    expect(refused[0]?.message).toMatch(/^claude-code: <project>\/\.claude\/skills leads out of <project> through a link/);
    expect(fs.existsSync(path.join(ws.home, '.claude/skills/deploy'))).toBe(false);
    expect(fs.existsSync(path.join(ws.home, '.claude/skills/notes/SKILL.md'))).toBe(true);
  });

  it('21 apply --project "$HOME" run twice after a plain apply retires nothing', () => {
    const ws = workspace({ capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } } });
    fs.mkdirSync(path.join(ws.home, '.agents', 'skills', 'mine'), { recursive: true });
    fs.writeFileSync(path.join(ws.home, '.agents', 'skills', 'mine', 'SKILL.md'), skill('mine'));
    expect(loadout(ws.home, ['apply', '--json']).status).toBe(0);
    for (let round = 0; round < 2; round += 1) {
      const run = loadout(ws.home, ['apply', '--project', ws.home, '--json']);
      expect(run.json<ApplyJson>().retired).toEqual([]);
    }
    expect(fs.existsSync(path.join(ws.home, '.agents/skills/notes/SKILL.md'))).toBe(true);
    expect(loadout(ws.home, ['apply', '--json']).json<ApplyJson>().retired).toEqual([]);
  });

  it('24 a self-link in one plugin skill holds that skill; every runtime gets the rest and apply succeeds', () => {
    const ws = workspace({ capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } } });
    const repo = pluginRepo(
      { skills: { loop: { 'SKILL.md': skill('loop') }, fine: { 'SKILL.md': skill('fine') } } },
      { 'skills/loop/self': 'self' },
    );
    // Approved, so that what holds the skill is its unreadable folder, not the plugin's consent.
    expect(loadout(ws.home, ['plugins', 'install', repo, '--name', 'kit', '--yes', '--json']).status).toBe(0);
    // What a skill folder runs cannot be known past a link loop, so the skill is held (37 M8), with the reason.
    const session = loadout(ws.home, ['session', '--json']).json<{ skills: { id: string; held?: { reason: string } }[] }>();
    expect(session.skills.find((record) => record.id === 'loop')?.held?.reason).toContain('skills/loop/self');
    const run = loadout(ws.home, ['apply', '--json']);
    expect(run.status).toBe(0);
    expect(run.stdout + run.stderr).not.toContain('ELOOP');
    expect(run.stdout).not.toContain(ws.home);
    for (const folder of ['.claude/skills', '.agents/skills']) {
      expect(fs.existsSync(path.join(ws.home, folder, 'fine/SKILL.md'))).toBe(true);
      expect(fs.existsSync(path.join(ws.home, folder, 'loop'))).toBe(false);
    }
  });

  it('14 after an apply killed while holding its lock, the next apply runs at once', async () => {
    const ws = workspace({ capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } } });
    // A process holding the lock `loadout apply` takes, killed with SIGKILL while it holds it.
    const target = path.join(ws.dataDir, 'runtimes');
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { acquireFileLock } = await import('@loadout/files');
         await acquireFileLock(${JSON.stringify(target)}, { stale: 30000 });
         console.log('held');
         setInterval(() => {}, 1000);`,
      ],
      { cwd: E2E_PACKAGE, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    started.push(holder);
    await new Promise<void>((done, fail) => {
      holder.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('held') && done());
      holder.once('exit', (code) => fail(new Error(`the holder exited with ${code}`)));
    });
    holder.kill('SIGKILL');
    await exitWithin(holder, 5000);
    expect(fs.existsSync(`${target}.lock`)).toBe(true);
    const before = Date.now();
    const run = loadout(ws.home, ['apply', '--json'], { timeoutMs: 40_000 });
    expect(run.status).toBe(0);
    expect(Date.now() - before).toBeLessThan(10_000);
    expect(fs.existsSync(path.join(ws.home, '.claude/skills/notes/SKILL.md'))).toBe(true);
  }, 60_000);
});

describe('loadout plugins killed while git works', () => {
  it('16 a SIGTERMed install stops its git at once, and its staging clone is gone by the next command', async () => {
    const ws = workspace();
    const repo = pluginRepo({ skills: { one: { 'SKILL.md': skill('one') } } });
    const pidFile = path.join(testdir(), 'git.pid');
    const bin = stallingGit(path.join(testdir(), 'bin'), { subcommand: 'clone', pidFile });
    const install = start(ws.home, ['plugins', 'install', repo, '--json'], { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` });
    const git = Number(await waitForFile(pidFile));
    strayPids.push(git);
    expect(staged(ws.home)).toHaveLength(1);
    install.kill('SIGTERM');
    expect(await exitWithin(install, 5000)).not.toBeNull();
    const deadline = Date.now() + 3000;
    while (alive(git) && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50));
    expect(alive(git)).toBe(false);
    expect(loadout(ws.home, ['plugins', 'list', '--json']).status).toBe(0);
    expect(staged(ws.home)).toEqual([]);
  }, 30_000);

  it('16 a SIGKILLed install leaves its staging clone only until the next command (its git lives on: the limit)', async () => {
    const ws = workspace();
    const repo = pluginRepo({ skills: { one: { 'SKILL.md': skill('one') } } });
    const pidFile = path.join(testdir(), 'git.pid');
    const bin = stallingGit(path.join(testdir(), 'bin'), { subcommand: 'clone', pidFile });
    const install = start(ws.home, ['plugins', 'install', repo, '--json'], { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` });
    strayPids.push(Number(await waitForFile(pidFile)));
    install.kill('SIGKILL');
    await exitWithin(install, 5000);
    expect(staged(ws.home)).toHaveLength(1);
    expect(loadout(ws.home, ['plugins', 'list', '--json']).status).toBe(0);
    expect(staged(ws.home)).toEqual([]);
  }, 30_000);

  it('10 an update killed mid-merge leaves the clone whole at its old commit; the next update completes', async () => {
    const ws = workspace();
    const repo = pluginRepo({ skills: { one: { 'SKILL.md': skill('one', 'Version one.') } } });
    expect(loadout(ws.home, ['plugins', 'install', repo, '--name', 'kit', '--json']).status).toBe(0);
    const clone = path.join(ws.home, 'plugins', 'kit');
    const v1 = gitIn(clone, 'rev-parse', 'HEAD');
    fs.writeFileSync(path.join(repo, 'skills/one/SKILL.md'), skill('one', 'Version two.'));
    fs.mkdirSync(path.join(repo, 'skills/two'));
    fs.writeFileSync(path.join(repo, 'skills/two/SKILL.md'), skill('two'));
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@loadout.invalid', 'commit', '-qam', 'v2'], { cwd: repo });
    execFileSync('git', ['add', '-A'], { cwd: repo });
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@loadout.invalid', 'commit', '-qm', 'v2 two'], { cwd: repo });

    // git is killed while merging: it leaves `.git/index.lock` where it ran.
    const pidFile = path.join(testdir(), 'git.pid');
    const bin = stallingGit(path.join(testdir(), 'bin'), { subcommand: 'merge', pidFile, leaveIndexLock: true });
    const update = start(ws.home, ['plugins', 'update', 'kit', '--json'], { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` });
    const git = Number(await waitForFile(pidFile));
    update.kill('SIGKILL');
    await exitWithin(update, 5000);
    process.kill(git, 'SIGKILL');

    expect(fs.existsSync(path.join(clone, '.git', 'index.lock'))).toBe(false);
    expect(gitIn(clone, 'rev-parse', 'HEAD')).toBe(v1);
    expect(gitIn(clone, 'status', '--porcelain')).toBe('');
    const session = loadout(ws.home, ['session', '--json']).json<{ skills: { id: string; description: string }[] }>();
    expect(session.skills.map((entry) => entry.id)).not.toContain('two');

    const again = loadout(ws.home, ['plugins', 'update', 'kit', '--json']);
    expect(again.status).toBe(0);
    expect(again.json<{ status: string }[]>()[0]).toMatchObject({ status: 'updated', from: v1 });
    expect(staged(ws.home)).toEqual([]);
    expect(fs.existsSync(path.join(clone, 'skills/two/SKILL.md'))).toBe(true);
  }, 40_000);
});

describe("a credential in a plugin URL's query", () => {
  it('18 is redacted in `loadout plugins search`', () => {
    const ws = workspace();
    const market = pluginRepo({
      '.claude-plugin': {
        'marketplace.json': JSON.stringify({
          name: 'corp',
          owner: { name: 'Corp' },
          plugins: [
            {
              name: 'kit',
              source: { source: 'url', url: 'https://gitlab.example.com/team/kit.git?private_token=glpat-SEARCHSECRET42' },
              description: 'Kit',
            },
          ],
        }),
      },
    });
    expect(loadout(ws.home, ['marketplace', 'add', market, '--json']).status).toBe(0);
    const search = loadout(ws.home, ['plugins', 'search', '--json']);
    expect(search.status).toBe(0);
    expect(search.stdout).toContain('kit@corp');
    expect(search.stdout).not.toContain('SEARCHSECRET');
    const human = loadout(ws.home, ['plugins', 'search']);
    expect(human.stdout).not.toContain('SEARCHSECRET');
  });
});
