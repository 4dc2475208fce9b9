import childProcess from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { resolvePlaces } from '@loadout/kernel';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLY_PROOF_FILE, type ProofContext, proofDataDir, provenOutput } from './applyProof.js';
import { ApplyProofRecorder } from './ApplyProofRecorder.js';

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

/** Records `look` as a run of `apply` and keeps its proof when the run allows one. */
function record(name: string, look: () => void, provable = true): ProofContext {
  const ofRun = context(name);
  const recorder = new ApplyProofRecorder(ofRun, []);
  try {
    look();
  } finally {
    recorder.stop();
  }
  recorder.finish(`printed by ${name}\n`, provable);
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
    'async',
    'child',
    'stderr',
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
  it('holds while nothing it looked at moved, and gives what the run printed', () => {
    // Read through a path that is not normal: it is recorded as the file it names.
    const ofRun = record('read', () => fs.readFileSync(`${base}//file/./a.txt`));
    expect(provenOutput(ofRun)).toBe('printed by read\n');
    // A file edited in place, same size, its modification time put back: its change time moved.
    const file = path.join(base, 'file', 'a.txt');
    const before = fs.statSync(file);
    fs.writeFileSync(file, 'bbbb\n');
    fs.utimesSync(file, before.atime, before.mtime);
    expect(provenOutput(ofRun)).toBeNull();
  });

  it("takes the run's own lstat as a path's stamp, a failed one too", () => {
    const ofRun = record('lstat', () => {
      fs.lstatSync(path.join(base, 'file', 'b.txt'));
      expect(() => fs.lstatSync(path.join(base, 'file', 'c.txt'))).toThrow();
    });
    expect(provenOutput(ofRun)).not.toBeNull();
    fs.appendFileSync(path.join(base, 'file', 'b.txt'), 'more\n');
    expect(provenOutput(ofRun)).toBeNull();
    fs.writeFileSync(path.join(base, 'file', 'b.txt'), 'bbbb\n');
    const missing = record('lstat', () => expect(() => fs.lstatSync(path.join(base, 'file', 'c.txt'))).toThrow());
    expect(provenOutput(missing)).not.toBeNull();
    fs.writeFileSync(path.join(base, 'file', 'c.txt'), '');
    expect(provenOutput(missing)).toBeNull();
  });

  it('fails when an entry comes into a folder it listed or a path it found missing appears', () => {
    const listed = record('listed', () => fs.readdirSync(path.join(base, 'listed')));
    const absent = record('absent', () => fs.existsSync(path.join(base, 'nothing-here')));
    expect(provenOutput(listed)).not.toBeNull();
    expect(provenOutput(absent)).not.toBeNull();
    fs.writeFileSync(path.join(base, 'listed', 'two.md'), '2\n');
    fs.writeFileSync(path.join(base, 'nothing-here'), '');
    expect(provenOutput(listed)).toBeNull();
    expect(provenOutput(absent)).toBeNull();
  });

  it('fails when a folder above a real path it asked for becomes a link, even to the same folder', () => {
    const ofRun = record('real', () => fs.realpathSync(path.join(base, 'real', 'inner', 'x.md')));
    expect(provenOutput(ofRun)).not.toBeNull();
    fs.renameSync(path.join(base, 'real'), path.join(base, 'real-moved'));
    fs.symlinkSync(path.join(base, 'real-moved'), path.join(base, 'real'));
    expect(provenOutput(ofRun)).toBeNull();
  });

  it("fails when the database's log holds a write", () => {
    const ofRun = record('wal', () => undefined);
    expect(provenOutput(ofRun)).not.toBeNull();
    fs.writeFileSync(path.join(ofRun.dataDir, 'loadout.db-wal'), '');
    expect(provenOutput(ofRun)).not.toBeNull();
    fs.writeFileSync(path.join(ofRun.dataDir, 'loadout.db-wal'), 'frame');
    expect(provenOutput(ofRun)).toBeNull();
  });

  it('belongs to one command line, environment, working folder, kind of stdout and build', () => {
    const ofRun = record('key', () => undefined);
    expect(provenOutput(ofRun)).not.toBeNull();
    expect(provenOutput({ ...ofRun, argv: ['node', 'main.js', 'apply'] })).toBeNull();
    expect(provenOutput({ ...ofRun, env: { ...ofRun.env, CODEX_HOME: base } })).toBeNull();
    expect(provenOutput({ ...ofRun, cwd: path.join(base, 'file') })).toBeNull();
    expect(provenOutput({ ...ofRun, build: 'build-2' })).toBeNull();
    // What went to a pipe is not what a terminal gets (colours), nor the other way round.
    expect(provenOutput({ ...ofRun, stdoutIsTerminal: true })).toBeNull();
  });

  it('is not used when damaged or missing', () => {
    const ofRun = record('damaged', () => undefined);
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
  it("allows writes to Loadout's own caches and the lock, and puts fs back as it was", () => {
    const readFileSync = fs.readFileSync;
    const ofRun = record('own', () => {
      fs.mkdirSync(path.join(base, 'data-own', 'runtimes.lock'));
      fs.rmdirSync(path.join(base, 'data-own', 'runtimes.lock'));
      fs.writeFileSync(path.join(base, 'data-own', 'runtimes', 'bundle-stamps.json.tmp'), '{}');
      fs.renameSync(
        path.join(base, 'data-own', 'runtimes', 'bundle-stamps.json.tmp'),
        path.join(base, 'data-own', 'runtimes', 'bundle-stamps.json'),
      );
      // Removing what is not there changes nothing.
      fs.rmSync(path.join(base, 'file', 'staging'), { recursive: true, force: true });
    });
    expect(proofExists(ofRun)).toBe(true);
    expect(fs.readFileSync).toBe(readFileSync);
  });

  it('keeps no proof of a run that wrote elsewhere, used a callback or promise fs call, started a process or wrote to stderr', async () => {
    expect(proofExists(record('outside', () => fs.writeFileSync(path.join(base, 'written', 'w.txt'), 'w')))).toBe(false);
    let pending: Promise<unknown> = Promise.resolve();
    expect(proofExists(record('async', () => (pending = fs.promises.readFile(path.join(base, 'file', 'a.txt')))))).toBe(false);
    await pending;
    expect(proofExists(record('child', () => childProcess.spawnSync('true')))).toBe(false);
    expect(proofExists(record('stderr', () => process.stderr.write('')))).toBe(false);
  });

  it('keeps no proof when something it looked at changed less than a second before the run, or the run was refused', () => {
    fs.writeFileSync(path.join(base, 'racy-later.txt'), 'later, again\n');
    expect(proofExists(record('racy', () => fs.readFileSync(path.join(base, 'racy-later.txt'))))).toBe(false);
    expect(proofExists(record('refused', () => undefined, false))).toBe(false);
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
