import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { CLI_ENTRY, pathsInProof } from '@loadout/cli/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeLoadouts, installPlugin, machine, type Machine, openLoadout, skill } from '@loadout/runtimes/testing';
import type { CliRun } from '../spawnLoadout.js';
import { runLoadout } from './runLoadout.js';

// `apply` with nothing changed prints what the last full `apply` printed, without planning, while
// the proof that full run kept holds (packages/cli/src/applyProof.ts). These tests run the built
// command: each changes one kind of input after a proof was kept and checks that the next apply
// plans in full (and so prints what a full plan prints), and that an unchanged one is answered
// from the proof with the same bytes and exit status.

interface ProofRun extends CliRun {
  /** Whether the command answered from the proof: it never loaded the command line. */
  readonly proven: boolean;
}

const PROOF = path.join('runtimes', 'apply-proof');
/** The age past which a change is trusted by a stamp (the kernel's RACY_MS), with room. */
const SETTLE_MS = 1_100;

/**
 * Runs the built `loadout` with HOME and the runtimes' folders in the temp folder.
 * `LOADOUT_DEBUG_CODE_CACHE` makes a run that loads the command line say so on stderr, which
 * tells a full run from one answered by the proof (it is part of every run's environment, so of
 * the proof's key, alike).
 */
async function loadout(m: Machine, args: readonly string[], extraEnv: Record<string, string> = {}, cwd?: string): Promise<ProofRun> {
  const run = await runLoadout(m, args, { LOADOUT_DEBUG_CODE_CACHE: '1', ...extraEnv }, cwd);
  return { ...run, stderr: run.stderr.replace(/^loadout: code cache \w+\n/, ''), proven: !run.stderr.includes('loadout: code cache') };
}

const APPLY = ['apply', '--runtime', 'claude-code', '--runtime', 'codex', '--json'] as const;

/** A tracer of every path the process hands `fs`, preloaded into a run from outside Loadout's code. */
const TRACER = pathToFileURL(path.join(import.meta.dirname, 'traceReads.mjs')).href;

/**
 * Lets every input age past the racy window, runs a full apply that changes nothing (it keeps the
 * proof), and checks that the next one is answered from it with the same bytes. Returns that output.
 * A proof kept earlier is removed first: on a loaded machine the run before may have begun past the
 * racy window of its inputs, and kept one that rightly holds.
 */
async function proven(m: Machine, args: readonly string[] = APPLY, env: Record<string, string> = {}, cwd?: string): Promise<string> {
  await sleep(SETTLE_MS);
  fs.rmSync(path.join(m.places.dataDir, PROOF), { force: true });
  const full = await loadout(m, args, env, cwd);
  expect(full.proven).toBe(false);
  expect(full.code).toBe(0);
  expect(fs.existsSync(path.join(m.places.dataDir, PROOF))).toBe(true);
  const again = await loadout(m, args, env, cwd);
  expect(again).toEqual({ ...full, proven: true });
  return again.stdout;
}

/** An apply after a change: planned in full, never from the proof. */
async function planned(m: Machine, args: readonly string[] = APPLY, env: Record<string, string> = {}): Promise<ProofRun> {
  const run = await loadout(m, args, env);
  expect(run.proven).toBe(false);
  return run;
}

/** Rewrites a file in place with text of the same length and puts its modification time back. */
function editInPlace(file: string, edit: (text: string) => string): void {
  const before = fs.statSync(file);
  const text = fs.readFileSync(file, 'utf8');
  const next = edit(text);
  expect(next.length).toBe(text.length);
  expect(next).not.toBe(text);
  fs.writeFileSync(file, next);
  fs.utimesSync(file, before.atime, before.mtime);
}

function changeCount(run: ProofRun): number {
  return (JSON.parse(run.stdout) as { changeCount: number }).changeCount;
}

function twoSkills(): Machine {
  return machine({
    home: { '.codex': { 'config.toml': '# Codex\n' } },
    capabilities: {
      'config.json': '{"gates":{}}\n',
      skills: {
        notes: { 'SKILL.md': skill('notes'), 'reference.md': 'Read me.\n' },
        deploy: { 'SKILL.md': skill('deploy') },
      },
    },
  });
}

beforeAll(() => {
  if (!fs.existsSync(CLI_ENTRY)) throw new Error(`${CLI_ENTRY} is missing: run \`pnpm build\` first`);
});

afterEach(() => {
  closeLoadouts();
  removeTestdirs();
});

describe('apply with nothing changed, answered from its proof', () => {
  it('prints the same bytes and exit status as the full plan, in JSON and in text, and writes nothing', async () => {
    const m = twoSkills();
    expect((await loadout(m, APPLY)).code).toBe(0);
    const json = await proven(m);
    expect(JSON.parse(json)).toMatchObject({ ok: true, changeCount: 0, applied: false, upToDate: true });
    const text = await proven(m, ['apply', '--runtime', 'claude-code', '--runtime', 'codex']);
    expect(text).toContain('nothing to change');
    // Answered from the proof, the data folder is left as it was, times and all.
    const dataDir = fs.statSync(m.places.dataDir, { bigint: true });
    const proof = fs.statSync(path.join(m.places.dataDir, PROOF), { bigint: true });
    expect((await loadout(m, ['apply', '--runtime', 'claude-code', '--runtime', 'codex'])).proven).toBe(true);
    expect(fs.statSync(m.places.dataDir, { bigint: true }).mtimeNs).toBe(dataDir.mtimeNs);
    expect(fs.statSync(path.join(m.places.dataDir, PROOF), { bigint: true }).ctimeNs).toBe(proof.ctimeNs);
  });

  it('prints the note of a project found from the working folder, as the full plan did', async () => {
    const m = twoSkills();
    const text = ['apply', '--runtime', 'claude-code', '--runtime', 'codex'];
    expect((await loadout(m, text, {}, m.project)).code).toBe(0);
    const again = await proven(m, text, {}, m.project);
    expect(again.startsWith(`(project ${m.project}, found from the working folder; --project DIR picks another)\n`)).toBe(true);
    expect(again).toContain('nothing to change');
  });

  it('plans in full after a source SKILL.md is edited in place with its time put back', async () => {
    const m = twoSkills();
    await loadout(m, APPLY);
    await proven(m);
    editInPlace(path.join(m.places.capabilitiesDir, 'skills', 'notes', 'SKILL.md'), (text) => text.replace('Use notes', 'Use NOTES'));
    // One update in each agent's folder.
    expect(changeCount(await planned(m))).toBe(2);
  });

  it('plans in full after a file is added to or removed from a source skill', async () => {
    const m = twoSkills();
    await loadout(m, APPLY);
    await proven(m);
    fs.writeFileSync(path.join(m.places.capabilitiesDir, 'skills', 'deploy', 'extra.md'), 'More.\n');
    expect(changeCount(await planned(m))).toBe(2);
    await proven(m);
    fs.rmSync(path.join(m.places.capabilitiesDir, 'skills', 'notes', 'reference.md'));
    expect(changeCount(await planned(m))).toBe(2);
  });

  it("plans in full after an agent's copy is edited or deleted", async () => {
    const m = twoSkills();
    await loadout(m, APPLY);
    const before = await proven(m);
    editInPlace(path.join(m.home, '.claude', 'skills', 'notes', 'SKILL.md'), (text) => text.replace('Use notes', 'Use NOTES'));
    const edited = await planned(m);
    expect(edited.stdout).not.toBe(before);
    fs.rmSync(path.join(m.home, '.agents', 'skills', 'deploy'), { recursive: true });
    const deleted = await planned(m);
    expect(deleted.stdout).not.toBe(edited.stdout);
  });

  it('plans in full after a switch changes in the database', async () => {
    const m = twoSkills();
    await loadout(m, APPLY);
    await proven(m);
    expect((await loadout(m, ['capability', 'set', 'skill/deploy', '--disable', '--json'])).code).toBe(0);
    const off = await planned(m);
    expect(JSON.parse(off.stdout)).toMatchObject({ applied: true });
    await proven(m);
    expect((await loadout(m, ['capability', 'set', 'skill/deploy', '--enable', '--json'])).code).toBe(0);
    expect(changeCount(await planned(m))).toBeGreaterThan(0);
  });

  it('plans in full after a plugin is disabled or enabled', async () => {
    const m = twoSkills();
    installPlugin(openLoadout(m), m, 'tools', { skills: { lint: { 'SKILL.md': skill('lint') } } });
    closeLoadouts();
    await loadout(m, APPLY);
    await proven(m);
    expect((await loadout(m, ['plugins', 'disable', 'tools', '--json'])).code).toBe(0);
    expect(changeCount(await planned(m))).toBe(2);
    await proven(m);
    expect((await loadout(m, ['plugins', 'enable', 'tools', '--json'])).code).toBe(0);
    expect(changeCount(await planned(m))).toBe(2);
  });

  it("plans in full after the owner's config.json or a runtime's configuration file is edited", async () => {
    const m = twoSkills();
    await loadout(m, APPLY);
    const before = await proven(m);
    editInPlace(path.join(m.places.capabilitiesDir, 'config.json'), (text) => text.replace('{}}', '{ }'));
    // The same gates: the full plan prints what the proof held.
    expect((await planned(m)).stdout).toBe(before);
    await proven(m);
    fs.appendFileSync(path.join(m.env.CODEX_HOME as string, 'config.toml'), '# a comment\n');
    expect((await planned(m)).stdout).toBe(before);
  });

  it('plans in full for other options or another environment', async () => {
    const m = twoSkills();
    await loadout(m, APPLY);
    await proven(m);
    await planned(m, ['apply', '--runtime', 'codex', '--json']);
    await planned(m, ['apply', '--runtime', 'claude-code', '--runtime', 'codex', '--project', m.project, '--json']);
    await planned(m, APPLY, { SOME_VARIABLE: '1' });
    await planned(m, ['apply', '--runtime', 'claude-code', '--runtime', 'codex', '--dry-run', '--json']);
  });

  it('plans in full when the proof is damaged or foreign, and keeps none of a run whose inputs are too recent', async () => {
    const m = twoSkills();
    await loadout(m, APPLY);
    const before = await proven(m);
    const proof = path.join(m.places.dataDir, PROOF);
    const kept = fs.readFileSync(proof, 'utf8');
    fs.writeFileSync(proof, kept.slice(0, 100));
    expect((await planned(m)).stdout).toBe(before);
    fs.writeFileSync(proof, kept.replace(/ [0-9a-f]{64} /, ` ${'0'.repeat(64)} `));
    expect((await planned(m)).stdout).toBe(before);
    // That full run changed nothing, so it kept its own proof again.
    const rewritten = fs.readFileSync(proof, 'utf8');
    expect(rewritten.slice(0, 100)).toBe(kept.slice(0, 100));
    // A skill whose stamp is too recent for a run to trust (dated ahead, so however long the runs
    // take on a loaded machine): the apply that copies it, and the one after, keep no proof.
    const deploy = path.join(m.places.capabilitiesDir, 'skills', 'deploy', 'SKILL.md');
    fs.writeFileSync(deploy, skill('deploy', 'Deploy carefully.\n'));
    const ahead = new Date(Date.now() + 3_600_000);
    fs.utimesSync(deploy, ahead, ahead);
    expect(changeCount(await planned(m))).toBe(2);
    expect(changeCount(await planned(m))).toBe(0);
    // The older proof is left as it was, and no longer holds.
    expect(fs.readFileSync(proof, 'utf8')).toBe(rewritten);
    expect(changeCount(await planned(m))).toBe(0);
  });
});

describe('what a proof holds', () => {
  it('every path the full run looked at and no process started, as a tracer outside Loadout saw it: plugins, a project, scripts, both configurations', async () => {
    const m = machine({
      home: { '.codex': { 'config.toml': '# Codex\n' }, '.claude.json': '{}\n' },
      capabilities: {
        'config.json': '{"gates":{}}\n',
        skills: {
          notes: { 'SKILL.md': skill('notes'), 'reference.md': 'Read me.\n' },
          deploy: { 'SKILL.md': skill('deploy'), 'run.sh': '#!/bin/sh\necho deployed\n' },
        },
      },
      project: { '.agents': { skills: { local: { 'SKILL.md': skill('local') } } } },
    });
    installPlugin(openLoadout(m), m, 'tools', { skills: { lint: { 'SKILL.md': skill('lint') } } });
    closeLoadouts();
    const args = [...APPLY, '--project', m.project];
    expect((await loadout(m, args)).code).toBe(0);
    await sleep(SETTLE_MS);
    const traceFile = path.join(testdir(), 'looked-at.txt');
    const traced = { NODE_OPTIONS: `--import=${TRACER}`, LOADOUT_TEST_READ_TRACE: traceFile };
    const full = await loadout(m, args, traced);
    expect(full.code, full.stderr).toBe(0);
    expect(full.proven).toBe(false);
    const proof = path.join(m.places.dataDir, PROOF);
    const held = pathsInProof(proof);
    const dataDir = m.places.dataDir;
    // What Loadout keeps for itself (the proof's own rule), the database's `-shm` (SQLite's index
    // of its log, rewritten by every connection: the proof stamps the database and its log) and
    // what only the build is: the bundle and its code cache are named by the build's hash, which
    // is part of the proof's key.
    const own = (file: string): boolean =>
      file === dataDir ||
      file === path.join(dataDir, 'loadout.db-shm') ||
      file === path.join(dataDir, 'runtimes') ||
      ['runtimes.lock', path.join('runtimes', 'bundle-stamps.json'), PROOF].some((name) => file.startsWith(path.join(dataDir, name))) ||
      file.startsWith('/proc/') ||
      file.startsWith(path.dirname(CLI_ENTRY) + path.sep);
    const looked = fs
      .readFileSync(traceFile, 'utf8')
      .split('\n')
      .filter((file) => file !== '');
    expect(looked.length).toBeGreaterThan(20);
    expect(looked.filter((file) => !own(file) && !held.has(file))).toEqual([]);
    // And that proof answers the next run with the same environment.
    expect((await loadout(m, args, traced)).proven).toBe(true);
  });
});
