// Putting skills into agents, as a user does it, against the peer a user would otherwise run.
//
// The source is one local git repository of 300 generated skills (`skills/<name>/SKILL.md`),
// reached by a file URL, so both sides clone it the same way and nothing leaves the machine.
// Every process gets a small environment (PATH, a scratch HOME, LANG) and a HOME of its own, but
// for the as-a-user runs below.
//
// Figures, each named for what it is:
// - `installAndApply`: `loadout plugins install <repo>` then `loadout apply --runtime claude-code
//   --runtime codex`, in a fresh HOME and workspace: the plugin cloned and recorded, its 300 skills
//   copied into Claude Code's and Codex's user folders.
// - `installWithApply`: the same in one command, `loadout plugins install <repo> --apply --runtime
//   claude-code --runtime codex`, in a fresh HOME and workspace.
// - `peerAdd`: `skills add <repo> -g --copy -a claude-code -a codex -y --skill '*'` (npm `skills`,
//   the vercel CLI, pinned in the root package.json) in a fresh HOME: the same 300 skills copied
//   into the same two agents. Run by run interleaved with `installAndApply`.
// - `applyAgain`: `loadout apply` with the same runtimes once more, nothing changed, paired run by
//   run with `node -e ''`.
// - `asUser`: the same commands (two, and one) as a user's shell runs them: Loadout through the `loadout`
//   command `scripts/install-bin.sh` writes (installed into a scratch bin folder), the peer through
//   its package's own bin (`skills`, linked into that folder the way `npm install -g` links it),
//   both with this process's whole environment (NODE_EXTRA_CA_CERTS, proxies, whatever the shell
//   exports) and only HOME, the XDG folders, the agents' own folder variables and Loadout's
//   workspace swapped for scratch ones. What a user's environment adds to a command is paid by both.
//
// On ext4 without a journal (this kind of VM), an inode freed in the last 30–35 s is not reused
// while its group has another free one, and every create scans past it: a command that makes
// files right after someone deleted some pays for those deletes (2–4× here; see performance.md,
// "Install and first apply, fourth pass"). The peer deletes its temporary clone at its end, right
// before Loadout's next run, and the benches before this one delete 10,000 files. So that neither
// side pays for the other's deletes, every timed run on such a file system starts at least
// SETTLE_MS after the last delete the bench knows of (its own start, each peer run's end); on a
// file system with a journal nothing waits (`BENCH_APPLY_SETTLE_MS`, 36,000 by default; 0 never
// waits). The JSON's `settle` says whether it waited, why and how long.
//
// Both sides are checked, not trusted: each run's HOME must hold the 300 skills in both agents'
// folders, and the second apply must report nothing to change. The peer needs a Node that it
// supports (skills 1.5.19 and later need Node ≥ 22.20; 1.5.17 is the newest for Node 20): when it
// cannot run, the output says why and its target is reported not met with the reason.
//
// One untimed round of every form comes first (BENCH_APPLY_WARMUP, 1 by default; 0 for none).
//
// Prints one JSON document and one line per target on stderr.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { exited, median, now, round } from './makeWorkspace.mjs';
import { printTargets, target } from './targets.mjs';

const root = path.resolve(import.meta.dirname, '../..');
// BENCH_APPLY_CLI names another build's `packages/cli/dist/main.js` (the branch point, say) to time it instead.
const MAIN = process.env.BENCH_APPLY_CLI ?? path.join(root, 'packages/cli/dist/main.js');
const PEER = path.join(root, 'node_modules/skills/bin/cli.mjs');
const SKILLS = Number(process.env.BENCH_APPLY_SKILLS ?? 300);
const RUNS = Number(process.env.BENCH_APPLY_RUNS ?? 5);
const WARMUP = Number(process.env.BENCH_APPLY_WARMUP ?? 1);
const AGAIN_RUNS = Number(process.env.BENCH_RUNS ?? 15);
const RUNTIMES = ['--runtime', 'claude-code', '--runtime', 'codex'];
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'loadout-bench-apply-'));
const SETTLE_MS = Number(process.env.BENCH_APPLY_SETTLE_MS ?? 36_000);

/**
 * Why creates under `dir` pay for recent deletes, or null when they do not: ext4 without a journal
 * (its mount's device has no `/proc/fs/jbd2/<device>-…` entry). Read from /proc/self/mountinfo;
 * anywhere else (another file system, no /proc) nothing waits.
 */
function unjournaledExt4(dir) {
  let mount = null;
  try {
    for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      const fields = line.split(' ');
      const separator = fields.indexOf('-');
      if (separator < 0) continue;
      const mountPoint = fields[4];
      const inside = mountPoint === '/' || dir === mountPoint || dir.startsWith(`${mountPoint}/`);
      if (inside && (mount === null || mountPoint.length >= mount.mountPoint.length))
        mount = { mountPoint, type: fields[separator + 1], source: fields[separator + 2] };
    }
    if (mount === null || mount.type !== 'ext4') return null;
    const device = path.basename(mount.source);
    const journaled = fs.existsSync('/proc/fs/jbd2') && fs.readdirSync('/proc/fs/jbd2').some((name) => name.startsWith(`${device}-`));
    return journaled ? null : `${mount.source} (ext4 without a journal) holds ${dir}`;
  } catch {
    return null;
  }
}
const settleReason = SETTLE_MS > 0 ? unjournaledExt4(scratch) : null;
let lastDeleteAt = now();
let settledMs = 0;

/**
 * What pages a file out of the page cache while the bench waits, or null: a DAMON scheme that pages
 * out what was not accessed for a while (this kind of VM runs one: `pageout` after 12 × 5 s). Read
 * from /sys/kernel/mm/damon/admin; anywhere else, null.
 */
function proactivePageout() {
  const admin = '/sys/kernel/mm/damon/admin/kdamonds';
  try {
    for (const kdamond of fs.readdirSync(admin).filter((name) => /^\d+$/.test(name))) {
      if (fs.readFileSync(path.join(admin, kdamond, 'state'), 'utf8').trim() !== 'on') continue;
      const contexts = path.join(admin, kdamond, 'contexts');
      for (const context of fs.readdirSync(contexts).filter((name) => /^\d+$/.test(name))) {
        const schemes = path.join(contexts, context, 'schemes');
        const aggregateUs = Number(fs.readFileSync(path.join(contexts, context, 'monitoring_attrs/intervals/aggr_us'), 'utf8'));
        for (const scheme of fs.readdirSync(schemes).filter((name) => /^\d+$/.test(name))) {
          if (fs.readFileSync(path.join(schemes, scheme, 'action'), 'utf8').trim() !== 'pageout') continue;
          const minAge = Number(fs.readFileSync(path.join(schemes, scheme, 'access_pattern/age/min'), 'utf8'));
          return `DAMON pages out what was not accessed for ${Math.round((minAge * aggregateUs) / 1e6)} s`;
        }
      }
    }
  } catch {
    return null;
  }
  return null;
}
const pageoutReason = proactivePageout();

/** Every regular file under `dir` (links followed), or `dir` itself when it is a file. */
function filesUnder(dir) {
  const real = fs.realpathSync(dir);
  if (fs.statSync(real).isFile()) return [real];
  return fs
    .readdirSync(real, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * Reads `files` into the page cache. Each timed run waits SETTLE_MS and more since the same side's
 * last run, long enough for a proactive pageout ({@link proactivePageout}) to have taken some of
 * its files and not others: a run then reads node, git or its own bundle back from the disk, and
 * which run pays depends on where it falls in the order (Loadout's runs read 0.76–1.06 s for the
 * same command). Before each run both sides get what they run from (node, git, the source
 * repository, and their own installed files) read in, as on a machine where they are in use; where
 * nothing pages out, this reads what is already cached.
 */
function warmPageCache(files) {
  for (const file of files) {
    try {
      fs.readFileSync(file);
    } catch {
      // Gone or unreadable: the run itself will say so.
    }
  }
}

/** Waits until the bench's last known delete is SETTLE_MS old, where that matters ({@link unjournaledExt4}). */
async function settle() {
  if (settleReason === null) return;
  const wait = lastDeleteAt + SETTLE_MS - now();
  if (wait <= 0) return;
  settledMs += wait;
  await new Promise((resolve) => setTimeout(resolve, wait));
}

/** A git repository of `count` skills, committed; returns its file URL. */
function makeSkillRepository(count) {
  const repo = path.join(scratch, 'skills-repo');
  for (let i = 1; i <= count; i += 1) {
    const name = `bench-skill-${String(i).padStart(3, '0')}`;
    fs.mkdirSync(path.join(repo, 'skills', name), { recursive: true });
    fs.writeFileSync(
      path.join(repo, 'skills', name, 'SKILL.md'),
      `---\nname: ${name}\ndescription: Benchmark skill ${i}; does nothing but take up room in a realistic way.\n---\n# ${name}\n\n${'Step by step instructions for the agent. '.repeat(20)}\n`,
    );
  }
  const git = (...args) => {
    const run = spawnSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', '-c', 'init.defaultBranch=main', ...args], {
      cwd: repo,
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  };
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'skills');
  return `file://${repo}`;
}

/**
 * Runs `command args` to its exit in `env` (added to a small one: PATH and LANG; `whole` gives
 * `env` alone); returns its time and output, or throws on a non-zero status.
 */
async function run(command, args, env, whole = false) {
  const started = now();
  const child = spawn(command, args, {
    env: whole ? env : { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...env },
    cwd: env.HOME ?? scratch,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  await exited(child);
  const ms = now() - started;
  if (child.exitCode !== 0)
    throw new Error(`${path.basename(args[0] ?? command)} ${args.slice(1).join(' ')} exited ${child.exitCode}: ${stderr.slice(0, 400)}`);
  return { ms, stdout };
}

/** Throws unless `home` holds `SKILLS` skills for Claude Code and for Codex. */
function checkInstalled(home, who) {
  for (const folder of ['.claude/skills', '.agents/skills']) {
    const dir = path.join(home, folder);
    const count = fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => fs.existsSync(path.join(dir, name, 'SKILL.md'))).length : 0;
    if (count !== SKILLS) throw new Error(`${who} left ${count} skills in ~/${folder}, not ${SKILLS}`);
  }
}

/** A fresh HOME under the scratch folder. */
function freshHome(name) {
  const home = path.join(scratch, name);
  fs.mkdirSync(home);
  return home;
}

/** Loadout's side: clone and record the plugin, then apply it to both agents. */
async function installAndApply(url, home) {
  const env = { HOME: home, LOADOUT_HOME: path.join(home, 'workspace') };
  const install = await run(process.execPath, [MAIN, 'plugins', 'install', url, '--json'], env);
  const apply = await run(process.execPath, [MAIN, 'apply', ...RUNTIMES, '--json'], env);
  checkInstalled(home, 'loadout apply');
  return { ms: install.ms + apply.ms, installMs: install.ms, applyMs: apply.ms };
}

/** The same in one command: `plugins install --apply` with the same runtimes. */
async function installWithApply(url, home) {
  const env = { HOME: home, LOADOUT_HOME: path.join(home, 'workspace') };
  const both = await run(process.execPath, [MAIN, 'plugins', 'install', url, '--apply', ...RUNTIMES, '--json'], env);
  checkInstalled(home, 'loadout plugins install --apply');
  return both.ms;
}

/** A scratch bin folder holding `loadout` (install-bin.sh's wrapper, for the node running this) and `skills` (the peer's bin). */
function userBin() {
  const bin = path.join(scratch, 'bin');
  const install = spawnSync('bash', [path.join(root, 'scripts/install-bin.sh'), bin], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` },
  });
  if (install.status !== 0) throw new Error(`install-bin.sh failed: ${install.stderr}`);
  fs.symlinkSync(PEER, path.join(bin, 'skills'));
  return bin;
}

/**
 * This process's environment as a user's shell would hand it on, with only what points at the
 * user's own folders moved into `home`: HOME, the XDG folders, the agents' and Loadout's own.
 */
function userEnvironment(home, bin) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('LOADOUT_')) delete env[name];
  delete env.CLAUDE_CONFIG_DIR;
  delete env.CODEX_HOME;
  return {
    ...env,
    PATH: `${bin}${path.delimiter}${env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local/share'),
    XDG_STATE_HOME: path.join(home, '.local/state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    LOADOUT_HOME: path.join(home, 'workspace'),
  };
}

/** Loadout as a user runs it: the installed `loadout` command in the user's environment. */
async function installAndApplyAsUser(url, home, bin) {
  const env = userEnvironment(home, bin);
  const loadout = path.join(bin, 'loadout');
  const install = await run(loadout, ['plugins', 'install', url, '--json'], env, true);
  const apply = await run(loadout, ['apply', ...RUNTIMES, '--json'], env, true);
  checkInstalled(home, 'loadout apply (as a user)');
  return { ms: install.ms + apply.ms, installMs: install.ms, applyMs: apply.ms };
}

/** The same in one command, as a user runs it. */
async function installWithApplyAsUser(url, home, bin) {
  const both = await run(
    path.join(bin, 'loadout'),
    ['plugins', 'install', url, '--apply', ...RUNTIMES, '--json'],
    userEnvironment(home, bin),
    true,
  );
  checkInstalled(home, 'loadout plugins install --apply (as a user)');
  return both.ms;
}

/** The peer as a user runs it: its installed `skills` command in the user's environment. */
async function peerAddAsUser(url, home, bin) {
  const env = { ...userEnvironment(home, bin), DISABLE_TELEMETRY: '1', DO_NOT_TRACK: '1', CI: '1' };
  delete env.LOADOUT_HOME;
  const added = await run(
    path.join(bin, 'skills'),
    ['add', url, '-g', '--copy', '-a', 'claude-code', '-a', 'codex', '-y', '--skill', '*'],
    env,
    true,
  );
  checkInstalled(home, 'skills add (as a user)');
  return added.ms;
}

/** The peer's side; null with the reason when it cannot run here. */
async function peerAdd(url, home) {
  const env = { HOME: home, DISABLE_TELEMETRY: '1', DO_NOT_TRACK: '1', CI: '1' };
  const added = await run(
    process.execPath,
    [PEER, 'add', url, '-g', '--copy', '-a', 'claude-code', '-a', 'codex', '-y', '--skill', '*'],
    env,
  );
  checkInstalled(home, 'skills add');
  return added.ms;
}

/** Why the peer cannot run here, or null when it can. */
function peerUnavailable() {
  if (!fs.existsSync(PEER)) return 'npm `skills` is not installed (root devDependency)';
  const probe = spawnSync(process.execPath, [PEER, '--version'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: scratch, DISABLE_TELEMETRY: '1' },
  });
  if (probe.status !== 0)
    return `npm \`skills\` does not run on Node ${process.versions.node}: ${(
      probe.stderr
        .trim()
        .split('\n')
        .find((line) => line.includes('Error')) ?? probe.stderr.trim()
    ).slice(0, 200)}`;
  return null;
}

try {
  const url = makeSkillRepository(SKILLS);
  const peerProblem = peerUnavailable();
  const peerVersion =
    peerProblem === null
      ? spawnSync(process.execPath, [PEER, '--version'], {
          encoding: 'utf8',
          env: { PATH: process.env.PATH ?? '', HOME: scratch, DISABLE_TELEMETRY: '1' },
        }).stdout.trim()
      : null;
  const bin = userBin();
  const gitExecPath = spawnSync('git', ['--exec-path'], { encoding: 'utf8' }).stdout.trim();
  const shared = [
    ...filesUnder(process.execPath),
    ...filesUnder(path.join(gitExecPath, 'git')),
    ...filesUnder(path.join(gitExecPath, 'git-upload-pack')),
    ...filesUnder(new URL(url).pathname),
  ];
  const sqliteAddon = path.join(
    path.dirname(createRequire(path.join(root, 'packages/db/package.json')).resolve('better-sqlite3/package.json')),
    'build/Release',
  );
  const oursFiles = [
    ...shared,
    // The entry and the bundle beside it; not dist/lib, tsc's files, which the built command never loads.
    ...filesUnder(path.dirname(MAIN)).filter((file) => !path.relative(path.dirname(MAIN), file).startsWith(`lib${path.sep}`)),
    ...filesUnder(sqliteAddon),
    ...filesUnder(path.join(bin, 'loadout')),
  ];
  const peerFiles = [...shared, ...filesUnder(path.dirname(path.dirname(PEER)))];
  /** Before a timed run: the settle, then what that side runs from read in. */
  const ready = async (files) => {
    await settle();
    warmPageCache(files);
  };
  const ours = [];
  const oursInOne = [];
  const peer = [];
  const oursAsUser = [];
  const oursInOneAsUser = [];
  const peerAsUser = [];
  // WARMUP untimed rounds first (their results are dropped): in the rounds of 6 December the first
  // run of every form, the peer's too, read 10–30 % slower than the rest.
  for (let i = -WARMUP; i < RUNS; i += 1) {
    const keep = (list, value) => {
      if (i >= 0) list.push(value);
    };
    await ready(oursFiles);
    keep(ours, await installAndApply(url, freshHome(`loadout-${i}`)));
    if (peerProblem === null) {
      await ready(peerFiles);
      keep(peer, await peerAdd(url, freshHome(`peer-${i}`)));
      lastDeleteAt = now(); // the peer removes its temporary clone as it ends
    }
    await ready(oursFiles);
    keep(oursInOne, await installWithApply(url, freshHome(`loadout-one-${i}`)));
    await ready(oursFiles);
    keep(oursAsUser, await installAndApplyAsUser(url, freshHome(`user-loadout-${i}`), bin));
    if (peerProblem === null) {
      await ready(peerFiles);
      keep(peerAsUser, await peerAddAsUser(url, freshHome(`user-peer-${i}`), bin));
      lastDeleteAt = now();
    }
    await ready(oursFiles);
    keep(oursInOneAsUser, await installWithApplyAsUser(url, freshHome(`user-loadout-one-${i}`), bin));
  }
  // `apply` again in the last run's HOME: nothing changed since it applied.
  const againEnv = {
    HOME: path.join(scratch, `loadout-${RUNS - 1}`),
    LOADOUT_HOME: path.join(scratch, `loadout-${RUNS - 1}`, 'workspace'),
  };
  const again = [];
  const baseline = [];
  await run(process.execPath, [MAIN, 'apply', ...RUNTIMES, '--json'], againEnv);
  for (let i = 0; i < AGAIN_RUNS; i += 1) {
    baseline.push((await run(process.execPath, ['-e', ''], { HOME: againEnv.HOME })).ms);
    const applied = await run(process.execPath, [MAIN, 'apply', ...RUNTIMES, '--json'], againEnv);
    const result = JSON.parse(applied.stdout);
    if (result.changeCount !== 0 || result.applied !== false)
      throw new Error(`apply with nothing changed planned ${result.changeCount} changes`);
    again.push(applied.ms);
  }
  const oursMs = median(ours.map((r) => r.ms));
  const peerMs = peer.length === 0 ? NaN : median(peer);
  const oursInOneMs = median(oursInOne);
  const oursAsUserMs = median(oursAsUser.map((r) => r.ms));
  const oursInOneAsUserMs = median(oursInOneAsUser);
  const peerAsUserMs = peerAsUser.length === 0 ? NaN : median(peerAsUser);
  const againMs = median(again);
  const spawnNodeMs = median(baseline);
  const result = {
    benchmark: 'apply',
    skills: SKILLS,
    runs: RUNS,
    warmupRuns: WARMUP,
    againRuns: AGAIN_RUNS,
    peer: peerProblem === null ? { package: 'skills', version: peerVersion } : { package: 'skills', unavailable: peerProblem },
    baseline: {
      spawnNodeMs: round(spawnNodeMs),
      ...(peer.length === 0 ? {} : { peerAddMs: round(peerMs), peerAddAsUserMs: round(peerAsUserMs) }),
    },
    // Which of the user's environment variables the as-a-user runs carried that change how node starts.
    userEnvironment: Object.fromEntries(
      ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'NODE_USE_SYSTEM_CA']
        .filter((name) => process.env[name] !== undefined)
        .map((name) => [name, process.env[name]]),
    ),
    pageCache: pageoutReason === null ? { warmed: true } : { warmed: true, why: pageoutReason },
    settle:
      settleReason === null
        ? { waited: false }
        : { waited: true, why: settleReason, afterDeleteMs: SETTLE_MS, totalWaitMs: round(settledMs) },
    figures: {
      installAndApplyMs: round(oursMs),
      installMs: round(median(ours.map((r) => r.installMs))),
      firstApplyMs: round(median(ours.map((r) => r.applyMs))),
      applyAgainMs: round(againMs),
      installWithApplyMs: round(oursInOneMs),
      asUser: {
        installAndApplyMs: round(oursAsUserMs),
        installMs: round(median(oursAsUser.map((r) => r.installMs))),
        firstApplyMs: round(median(oursAsUser.map((r) => r.applyMs))),
        installWithApplyMs: round(oursInOneAsUserMs),
      },
    },
    // Every run's time, in run order, so an outlier can be seen beside the median.
    runsMs: {
      installAndApply: ours.map((r) => round(r.ms)),
      installWithApply: oursInOne.map(round),
      peerAdd: peer.map(round),
      asUser: {
        installAndApply: oursAsUser.map((r) => round(r.ms)),
        installWithApply: oursInOneAsUser.map(round),
        peerAdd: peerAsUser.map(round),
      },
    },
    cores: os.cpus().length,
  };
  const unavailable = peerProblem === null ? undefined : { holds: false, note: peerProblem };
  result.targets = [
    target(
      `install + first apply of ${SKILLS} skills into Claude Code + Codex, two commands (plugins install, apply) ≤ 0.5× skills add -g --copy`,
      oursMs / peerMs,
      0.5,
      unavailable,
    ),
    target(
      `install + first apply of ${SKILLS} skills into Claude Code + Codex, one command (plugins install --apply) ≤ 0.5× skills add -g --copy`,
      oursInOneMs / peerMs,
      0.5,
      unavailable,
    ),
    target(
      `install + first apply of ${SKILLS} skills as a user runs them (installed commands, the shell's environment), two commands ≤ 0.5× skills add -g --copy`,
      oursAsUserMs / peerAsUserMs,
      0.5,
      unavailable,
    ),
    target(
      `install + first apply of ${SKILLS} skills as a user runs them, one command (plugins install --apply) ≤ 0.5× skills add -g --copy`,
      oursInOneAsUserMs / peerAsUserMs,
      0.5,
      unavailable,
    ),
    target(`apply again, nothing changed (${SKILLS} skills) ≤ 3× node -e ''`, againMs / spawnNodeMs, 3),
  ];
  printTargets('apply', result.targets);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
