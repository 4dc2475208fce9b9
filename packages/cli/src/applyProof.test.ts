import childProcess from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidInputError, spoilsReads, trackedFs, withReadLog } from '@loadout/files';
import { removeTestdirs, testdir, watchFs } from '@loadout/files/testing';
import { resolvePlaces } from '@loadout/kernel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLY_PROOF_FILE, type ProofContext, proofDataDir, provenOutput } from './applyProof.js';
import { ApplyProofRecorder } from './ApplyProofRecorder.js';
import { CliContext } from './CliContext.js';
import { pathsInProof } from './testing/index.js';

/** Past the racy window: what the fixture holds is old enough to be stamped. */
const SETTLE_MS = 1_100;

let base = '';

/** A context of its own data folder under the fixture. */
function context(name: string, change: Partial<ProofContext> = {}): ProofContext {
  return {
    argv: ['node', 'main.js', 'apply', '--json'],
    env: { HOME: base, PATH: '/usr/bin' },
    cwd: base,
    build: 'build-1',
    dataDir: path.join(base, `data-${name}`),
    stdoutIsTerminal: false,
    ...change,
  };
}

/**
 * Records `look` as a run of `apply` and keeps its proof when the run allows one. The old
 * process-wide interposer watches the run as an oracle: every path it saw handed to `fs` must be
 * in the kept proof (or be Loadout's own), and a run it saw start a process or write to stderr
 * must keep none. A read made around `trackedFs` fails here.
 */
async function record(name: string, look: () => unknown, provable = true): Promise<ProofContext> {
  const ofRun = context(name);
  // A proof an earlier run kept in this data folder is no proof of this run.
  fs.rmSync(path.join(ofRun.dataDir, APPLY_PROOF_FILE), { force: true });
  const recorder = new ApplyProofRecorder(ofRun, []);
  const oracle = watchFs();
  try {
    await withReadLog(recorder, async () => {
      await look();
      // Node says a warning on the next tick: still within the run.
      await new Promise((settled) => setImmediate(settled));
    });
  } finally {
    oracle.stop();
    recorder.stop();
  }
  recorder.finish(`printed by ${name}\n`, provable);
  const kept = path.join(ofRun.dataDir, APPLY_PROOF_FILE);
  if (fs.existsSync(kept)) {
    expect(oracle.started).toEqual([]);
    expect(oracle.stderrWrites).toBe(0);
    const held = pathsInProof(kept);
    const own = (file: string): boolean => file === ofRun.dataDir || file.startsWith(`${ofRun.dataDir}${path.sep}runtimes`);
    expect([...oracle.touched].filter((file) => !own(file) && !held.has(file))).toEqual([]);
  }
  return ofRun;
}

function proofExists(ofRun: ProofContext): boolean {
  return fs.existsSync(path.join(ofRun.dataDir, APPLY_PROOF_FILE));
}

beforeAll(async () => {
  base = testdir({
    file: { 'a.txt': 'aaaa\n', 'b.txt': 'bbbb\n' },
    listed: { 'one.md': '1\n' },
    real: { inner: { 'x.md': 'x\n' } },
    written: {},
    'racy-later.txt': 'later\n',
  });
  for (const name of [
    'read',
    'lstat',
    'listed',
    'absent',
    'real',
    'wal',
    'key',
    'damaged',
    'own',
    'outside',
    'child',
    'stderr',
    'warning',
    'missed',
    'outside-run',
    'racy',
    'refused',
  ]) {
    fs.mkdirSync(path.join(base, `data-${name}`, 'runtimes'), { recursive: true });
    fs.writeFileSync(path.join(base, `data-${name}`, 'loadout.db'), 'db');
  }
  await sleep(SETTLE_MS);
});

afterAll(removeTestdirs);

describe('the proof of an apply', () => {
  it('holds while nothing it looked at moved, and gives what the run printed', async () => {
    // Read through a path that is not normal: it is recorded as the file it names.
    const ofRun = await record('read', () => trackedFs.readFileSync(`${base}//file/./a.txt`));
    expect(provenOutput(ofRun)).toBe('printed by read\n');
    // A file edited in place, same size, its modification time put back: its change time moved.
    const file = path.join(base, 'file', 'a.txt');
    const before = fs.statSync(file);
    fs.writeFileSync(file, 'bbbb\n');
    fs.utimesSync(file, before.atime, before.mtime);
    expect(provenOutput(ofRun)).toBeNull();
  });

  it("takes the run's own lstat as a path's stamp, a failed one too", async () => {
    const ofRun = await record('lstat', () => {
      trackedFs.lstatSync(path.join(base, 'file', 'b.txt'));
      expect(() => trackedFs.lstatSync(path.join(base, 'file', 'c.txt'))).toThrow();
    });
    expect(provenOutput(ofRun)).not.toBeNull();
    fs.appendFileSync(path.join(base, 'file', 'b.txt'), 'more\n');
    expect(provenOutput(ofRun)).toBeNull();
    fs.writeFileSync(path.join(base, 'file', 'b.txt'), 'bbbb\n');
    const missing = await record('lstat', () => expect(() => trackedFs.lstatSync(path.join(base, 'file', 'c.txt'))).toThrow());
    expect(provenOutput(missing)).not.toBeNull();
    fs.writeFileSync(path.join(base, 'file', 'c.txt'), '');
    expect(provenOutput(missing)).toBeNull();
  });

  it('fails when an entry comes into a folder it listed or a path it found missing appears', async () => {
    const listed = await record('listed', () => trackedFs.readdirSync(path.join(base, 'listed')));
    const absent = await record('absent', () => trackedFs.existsSync(path.join(base, 'nothing-here')));
    expect(provenOutput(listed)).not.toBeNull();
    expect(provenOutput(absent)).not.toBeNull();
    fs.writeFileSync(path.join(base, 'listed', 'two.md'), '2\n');
    fs.writeFileSync(path.join(base, 'nothing-here'), '');
    expect(provenOutput(listed)).toBeNull();
    expect(provenOutput(absent)).toBeNull();
  });

  it('fails when a folder above a real path it asked for becomes a link, even to the same folder', async () => {
    const ofRun = await record('real', () => trackedFs.realpathSync(path.join(base, 'real', 'inner', 'x.md')));
    expect(provenOutput(ofRun)).not.toBeNull();
    fs.renameSync(path.join(base, 'real'), path.join(base, 'real-moved'));
    fs.symlinkSync(path.join(base, 'real-moved'), path.join(base, 'real'));
    expect(provenOutput(ofRun)).toBeNull();
  });

  it("fails when the database's log holds a write", async () => {
    const ofRun = await record('wal', () => undefined);
    expect(provenOutput(ofRun)).not.toBeNull();
    fs.writeFileSync(path.join(ofRun.dataDir, 'loadout.db-wal'), '');
    expect(provenOutput(ofRun)).not.toBeNull();
    fs.writeFileSync(path.join(ofRun.dataDir, 'loadout.db-wal'), 'frame');
    expect(provenOutput(ofRun)).toBeNull();
  });

  it('belongs to one command line, environment, working folder, kind of stdout and build', async () => {
    const ofRun = await record('key', () => undefined);
    expect(provenOutput(ofRun)).not.toBeNull();
    expect(provenOutput({ ...ofRun, argv: ['node', 'main.js', 'apply'] })).toBeNull();
    expect(provenOutput({ ...ofRun, env: { ...ofRun.env, CODEX_HOME: base } })).toBeNull();
    expect(provenOutput({ ...ofRun, cwd: path.join(base, 'file') })).toBeNull();
    expect(provenOutput({ ...ofRun, build: 'build-2' })).toBeNull();
    // What went to a pipe is not what a terminal gets (colours), nor the other way round.
    expect(provenOutput({ ...ofRun, stdoutIsTerminal: true })).toBeNull();
  });

  it('is not used when damaged or missing', async () => {
    const ofRun = await record('damaged', () => undefined);
    const file = path.join(ofRun.dataDir, APPLY_PROOF_FILE);
    const kept = fs.readFileSync(file, 'utf8');
    expect(provenOutput(ofRun)).not.toBeNull();
    const header = kept.slice(0, kept.indexOf('\n') + 1);
    for (const damaged of [
      kept.slice(0, kept.length - 3),
      kept.replace(/\t/, ' '),
      kept.replace(/ \d+\n/, ' 99999\n'),
      `${header}`,
      `x${kept}`,
      `${kept}=-\t${base}/file/a.txt\n`,
    ]) {
      fs.writeFileSync(file, damaged);
      expect(provenOutput(ofRun)).toBeNull();
    }
    fs.rmSync(file);
    expect(provenOutput(ofRun)).toBeNull();
  });
});

describe('recording a run', () => {
  it("allows writes to Loadout's own caches and the lock, and leaves fs as it was", async () => {
    const readFileSync = fs.readFileSync;
    const ofRun = await record('own', () => {
      trackedFs.mkdirSync(path.join(base, 'data-own', 'runtimes.lock'));
      trackedFs.rmdirSync(path.join(base, 'data-own', 'runtimes.lock'));
      trackedFs.writeFileSync(path.join(base, 'data-own', 'runtimes', 'bundle-stamps.json.tmp'), '{}');
      trackedFs.renameSync(
        path.join(base, 'data-own', 'runtimes', 'bundle-stamps.json.tmp'),
        path.join(base, 'data-own', 'runtimes', 'bundle-stamps.json'),
      );
      // Removing what is not there changes nothing.
      trackedFs.rmSync(path.join(base, 'file', 'staging'), { recursive: true, force: true });
    });
    expect(proofExists(ofRun)).toBe(true);
    expect(fs.readFileSync).toBe(readFileSync);
  });

  it('keeps no proof of a run that wrote elsewhere, started a process, said a line on stderr or a warning', async () => {
    expect(proofExists(await record('outside', () => trackedFs.writeFileSync(path.join(base, 'written', 'w.txt'), 'w')))).toBe(false);
    const spawnSync = spoilsReads('a child process', childProcess.spawnSync);
    expect(proofExists(await record('child', () => spawnSync('true', [])))).toBe(false);
    // The command line's own output: a refusal is one line on stderr.
    const stderr: string[] = [];
    const sink = { write: (text: string) => stderr.push(text) } as unknown as NodeJS.WritableStream;
    const cli = new CliContext({}, sink, sink);
    const exitCode = process.exitCode;
    try {
      const refused = () =>
        cli.run(
          false,
          () => {
            throw new InvalidInputError('TEST_REFUSED', 'refused');
          },
          String,
        );
      expect(proofExists(await record('stderr', refused))).toBe(false);
    } finally {
      process.exitCode = exitCode;
    }
    expect(stderr.join('')).toContain('refused');
    expect(proofExists(await record('warning', () => process.emitWarning('a warning of the run')))).toBe(false);
  });

  it('is checked by an oracle that fails a run whose read went around the tracked calls', async () => {
    const file = path.join(base, 'listed', 'one.md');
    await expect(record('missed', () => fs.readFileSync(file))).rejects.toThrow(/to deeply equal/);
    // The same read through the tracked calls is in the proof.
    expect(proofExists(await record('missed', () => trackedFs.readFileSync(file)))).toBe(true);
  });

  it('hears nothing made outside its run', async () => {
    const ofRun = context('outside-run');
    const recorder = new ApplyProofRecorder(ofRun, []);
    let later: Promise<unknown> = Promise.resolve();
    withReadLog(recorder, () => undefined);
    // A write from outside the run, while the run's log exists, is not the run's.
    trackedFs.writeFileSync(path.join(base, 'written', 'outside-run.txt'), 'w');
    await withReadLog(recorder, async () => {
      later = sleep(5).then(() => undefined);
      await later;
    });
    recorder.stop();
    recorder.finish('printed\n', true);
    expect(proofExists(ofRun)).toBe(true);
  });

  it('keeps no proof when something it looked at changed less than a second before the run, or the run was refused', async () => {
    fs.writeFileSync(path.join(base, 'racy-later.txt'), 'later, again\n');
    expect(proofExists(await record('racy', () => trackedFs.readFileSync(path.join(base, 'racy-later.txt'))))).toBe(false);
    expect(proofExists(await record('refused', () => undefined, false))).toBe(false);
  });

  it('finds the data folder where the kernel does', () => {
    for (const env of [
      {},
      { LOADOUT_HOME: '/h' },
      { LOADOUT_HOME: 'rel' },
      { LOADOUT_DATA_DIR: 'd', LOADOUT_HOME: '/h' },
      { LOADOUT_DATA_DIR: '', LOADOUT_HOME: '' },
    ]) {
      expect(proofDataDir(env, '/repo', '/work')).toBe(resolvePlaces(env, '/repo', '/work').dataDir);
    }
  });
});
