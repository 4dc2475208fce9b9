import fs from 'node:fs';
import path from 'node:path';
import { Database } from '@loadout/db';
import { closeKernel, loadModules, resolve, resolvePlaces, type Session, SessionLoader } from '@loadout/kernel';
import { RACY_MS } from '@loadout/files';
import { freezeReads, skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs, testdir, writeTree } from '@loadout/files/testing';
import { PluginRegistry } from '@loadout/plugins';
import { CapabilityStateService } from '@loadout/state';
import { TrustService } from '@loadout/trust';
import type { DependencyContainer } from 'tsyringe';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLoadout, loadoutModules } from '../src/createLoadout.js';

// A long-running server keeps what a warm session derived (the plugin registry's rows, the state
// filter's answer, which records run something, the grouping by kind) while what it was derived
// from stands still. These tests change each thing it depends on from another container on the
// same data folder — its own SQLite connection, as another process's command would — or on disk,
// and check that the very next session of the long-running one sees it, in both watch modes.

// The other container writes through the state and trust services, the modules' later parts:
// loaded first, as the command line does for every command but a session.
beforeAll(() => loadModules(loadoutModules));

const containers: DependencyContainer[] = [];
afterEach(() => {
  for (const container of containers.splice(0)) {
    if (container.isRegistered(Database, true)) resolve(container, Database).close();
    closeKernel(container);
  }
  removeTestdirs();
});

const pause = (ms = 60) => new Promise((done) => setTimeout(done, ms));
const skill = (name: string, extra = '') => ({ 'SKILL.md': `---\nname: ${name}\ndescription: The ${name} skill\n${extra}---\nUse it.\n` });
const task = (name: string) => ({
  'TASK.md': `---\nname: ${name}\ndescription: ${name} task\nimplementation: run.mjs\n---\n`,
  'run.mjs': 'console.log("ran");\n',
});

function workspace(watchBudget: number | undefined) {
  const work = testdir({
    home: { capabilities: { skills: { pdf: skill('pdf', 'gates:\n  ocr: on\n') } } },
    project: { '.agents': { tasks: { build: task('build') } } },
  });
  const places = resolvePlaces({}, path.join(work, 'home'));
  const plugin = (name: string, tree: Parameters<typeof writeTree>[1]) => {
    fs.mkdirSync(path.join(places.pluginsDir, name), { recursive: true });
    writeTree(path.join(places.pluginsDir, name), tree);
  };
  plugin('alpha', { skills: { 'a-one': skill('a-one') }, extra: { 'x-one': skill('x-one') }, tasks: { report: task('report') } });
  plugin('beta', { skills: { 'b-one': skill('b-one') } });
  plugin('gamma', { skills: { 'g-one': skill('g-one') } });
  // Another process's command: a container of its own, its own database connection, no watches.
  const other = createLoadout({ places });
  containers.push(other);
  const registry = resolve(other, PluginRegistry);
  for (const name of ['alpha', 'beta']) registry.add({ name, url: `file:///test/${name}`, ref: null, commit: '0'.repeat(40) });
  const live = createLoadout({ places, watch: true, ...(watchBudget === undefined ? {} : { watchBudget }) });
  // What the live container keeps is frozen: a change anywhere to a kept record or list throws.
  freezeReads(live);
  containers.push(live);
  const project = path.join(work, 'project');
  const open = async (): Promise<Session> => {
    await pause();
    const session = await live.resolve(SessionLoader).open({ project });
    session.dispose();
    return session;
  };
  /**
   * Opens until what the live container keeps is kept: files younger than a second are read again
   * at every open (their stamps are not trusted yet), so this waits for everything to be older
   * first. Called before each change, so the change lands on a warm container's kept answers.
   */
  const warm = async (): Promise<Session> => {
    await pause(RACY_MS + 100);
    await open();
    const session = await open();
    expect((await open()).recordsOf('skill')).toBe(session.recordsOf('skill'));
    return session;
  };
  return { places, other, registry, open, warm, project };
}

const skillIds = (session: Session) => session.recordsOf('skill').map((record) => record.id);

describe.each([
  ['watches available', undefined],
  ['LOADOUT_WATCH_BUDGET=2', 2],
])('a warm session, %s, sees every change to what it kept', (_mode, watchBudget) => {
  it('keeps what it derived while nothing moved', async () => {
    const { open, warm } = workspace(watchBudget);
    const kept = await warm();
    const again = await open();
    expect(skillIds(again)).toEqual(['a-one', 'b-one', 'pdf']);
    // The same records list is handed again: the shortcut is in use, so the tests below test it.
    expect(again.recordsOf('skill')).toBe(kept.recordsOf('skill'));
    expect(again.recordsOf('task')).toBe(kept.recordsOf('task'));
    expect(again.find('task', 'build')?.held?.decidedBy).toBe('untrusted-project');
  });

  it('sees plugins disabled, removed and added in the database by another connection', async () => {
    const { registry, open, warm } = workspace(watchBudget);
    await warm();
    registry.setEnabled('beta', false);
    expect(skillIds(await open())).toEqual(['a-one', 'pdf']);
    await warm();
    registry.setEnabled('beta', true);
    expect(skillIds(await open())).toEqual(['a-one', 'b-one', 'pdf']);
    await warm();
    registry.remove('beta');
    registry.add({ name: 'gamma', url: 'file:///test/gamma', ref: null, commit: '0'.repeat(40) });
    expect(skillIds(await open())).toEqual(['a-one', 'g-one', 'pdf']);
    await warm();
    registry.setOrder(['gamma', 'alpha']);
    expect((await open()).roots.map((root) => root.plugin)).toEqual([null, null, 'gamma', 'alpha']);
  });

  it('sees a switch turned off and on, and a gate set in config.json', async () => {
    const { other, places, open, warm } = workspace(watchBudget);
    await warm();
    const state = resolve(other, CapabilityStateService);
    expect((await state.setCapabilityState({}, [{ kind: 'skill', id: 'pdf', enabled: false }])).errors).toEqual([]);
    expect(skillIds(await open())).toEqual(['a-one', 'b-one']);
    await warm();
    expect((await state.setCapabilityState({}, [{ kind: 'skill', id: 'pdf', enabled: true }])).errors).toEqual([]);
    const back = await open();
    expect(back.find('skill', 'pdf')?.gates).toEqual({ ocr: true });
    await warm();
    fs.writeFileSync(path.join(places.capabilitiesDir, 'config.json'), JSON.stringify({ gates: { 'skill/pdf': { ocr: false } } }));
    expect((await open()).find('skill', 'pdf')?.gates).toEqual({ ocr: false });
    await warm();
    // Edited in place to the same length: the text, not its size, is what is compared.
    fs.writeFileSync(
      path.join(places.capabilitiesDir, 'config.json'),
      JSON.stringify({ gates: { 'skill/pdf': { ocr: true } } }).replace('true', 'true '),
    );
    expect((await open()).find('skill', 'pdf')?.gates).toEqual({ ocr: true });
  });

  it('sees a project trusted and untrusted', async () => {
    const { other, project, open, warm } = workspace(watchBudget);
    const held = (session: Session) => session.find('task', 'build')?.held?.decidedBy ?? null;
    expect(held(await warm())).toBe('untrusted-project');
    const trust = resolve(other, TrustService);
    await trust.trustProject(project);
    expect(held(await open())).toBeNull();
    expect(held(await warm())).toBeNull();
    await trust.untrustProject(project);
    expect(held(await open())).toBe('untrusted-project');
    // One hold lifted while another stays: the held list changes, not just whether there is one.
    const report = (session: Session) => session.find('task', 'report')?.held?.decidedBy ?? null;
    expect(report(await warm())).toBe('unapproved-plugin');
    await trust.approvePlugin('alpha');
    const approved = await open();
    expect(report(approved)).toBeNull();
    expect(held(approved)).toBe('untrusted-project');
    // A task that appears later in the untrusted project is held from the first session that has it.
    await warm();
    writeTree(path.join(project, '.agents', 'tasks'), { deploy: task('deploy') });
    expect((await open()).find('task', 'deploy')?.held?.decidedBy).toBe('untrusted-project');
  });

  it('sees a plugin layout edited, and a plugin folder deleted or replaced by a link', async () => {
    const { places, open, warm } = workspace(watchBudget);
    await warm();
    const alpha = path.join(places.pluginsDir, 'alpha');
    writeTree(alpha, { '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'alpha', skills: ['./extra'] }) } });
    expect(skillIds(await open())).toEqual(['a-one', 'b-one', 'pdf', 'x-one']);
    await warm();
    const beta = path.join(places.pluginsDir, 'beta');
    fs.rmSync(beta, { recursive: true });
    const gone = await open();
    expect(skillIds(gone)).toEqual(['a-one', 'pdf', 'x-one']);
    expect(gone.diagnostics.map((diagnostic) => diagnostic.code)).toContain('PLUGIN_FOLDER_MISSING');
    await warm();
    // The folder comes back as a link to another plugin's folder outside the plugins folder.
    const elsewhere = path.join(path.dirname(places.pluginsDir), 'elsewhere');
    fs.mkdirSync(elsewhere);
    writeTree(elsewhere, { skills: { 'l-one': { 'SKILL.md': skillMarkdown({ name: 'l-one', description: 'Linked' }) } } });
    fs.symlinkSync(elsewhere, beta);
    const linked = await open();
    expect(linked.diagnostics.map((diagnostic) => diagnostic.code)).not.toContain('PLUGIN_FOLDER_MISSING');
    expect(skillIds(linked)).toEqual(['a-one', 'l-one', 'pdf', 'x-one']);
  });

  it('decides an edited document again: a gate it declares, and a name a gate is configured for', async () => {
    const { places, open, warm } = workspace(watchBudget);
    fs.writeFileSync(
      path.join(places.capabilitiesDir, 'config.json'),
      JSON.stringify({ gates: { 'skill/a-one': { fast: false }, 'skill/b-renamed': { fast: false } } }),
    );
    const before = await warm();
    expect(before.find('skill', 'a-one')?.gates).toEqual({});
    // The same document now declares a gate the owner configured off: its configured value applies.
    const alphaSkill = path.join(places.pluginsDir, 'alpha', 'skills', 'a-one', 'SKILL.md');
    fs.writeFileSync(alphaSkill, fs.readFileSync(alphaSkill, 'utf8').replace('---\nUse', 'gates:\n  fast: on\n---\nUse'));
    const gated = await open();
    expect(gated.find('skill', 'a-one')?.gates).toEqual({ fast: false });
    expect(gated.find('skill', 'b-one')).toBe(before.find('skill', 'b-one'));
    // A document renamed to an id whose gate is configured: decided under its new name.
    await warm();
    const betaSkill = path.join(places.pluginsDir, 'beta', 'skills', 'b-one', 'SKILL.md');
    fs.writeFileSync(betaSkill, skill('b-renamed', 'gates:\n  fast: on\n')['SKILL.md']);
    const renamed = await open();
    expect(skillIds(renamed)).toEqual(['a-one', 'b-renamed', 'pdf']);
    expect(renamed.find('skill', 'b-renamed')?.gates).toEqual({ fast: false });
    // And edited back to a name whose gate nobody configured: its declared default again.
    await warm();
    fs.writeFileSync(betaSkill, skill('b-one', 'gates:\n  fast: on\n')['SKILL.md']);
    expect((await open()).find('skill', 'b-one')?.gates).toEqual({ fast: true });
  });

  it('leaves out a document edited to a name switched off, and shows it again once named back', async () => {
    const { other, places, open, warm } = workspace(watchBudget);
    // A switch stays stored for a skill that is gone: switched off while it was there, then removed.
    const gone = path.join(places.capabilitiesDir, 'skills', 'b-renamed');
    writeTree(gone, skill('b-renamed'));
    const state = resolve(other, CapabilityStateService);
    expect((await state.setCapabilityState({}, [{ kind: 'skill', id: 'b-renamed', enabled: false }])).errors).toEqual([]);
    fs.rmSync(gone, { recursive: true });
    const before = await warm();
    expect(skillIds(before)).toEqual(['a-one', 'b-one', 'pdf']);
    // Every record was on; the one edited now decides off: left out, and the session says so.
    const betaSkill = path.join(places.pluginsDir, 'beta', 'skills', 'b-one', 'SKILL.md');
    fs.writeFileSync(betaSkill, skill('b-renamed')['SKILL.md']);
    const renamed = await open();
    expect(skillIds(renamed)).toEqual(['a-one', 'pdf']);
    expect(renamed.find('skill', 'a-one')).toBe(before.find('skill', 'a-one'));
    expect(renamed.diagnostics.find((diagnostic) => diagnostic.code === 'CAPABILITIES_OFF')?.message).toContain('skill/b-renamed');
    // One record was off; named back, it is on again and nothing is reported off.
    await warm();
    fs.writeFileSync(betaSkill, skill('b-one')['SKILL.md']);
    const back = await open();
    expect(skillIds(back)).toEqual(['a-one', 'b-one', 'pdf']);
    expect(back.diagnostics.map((diagnostic) => diagnostic.code)).not.toContain('CAPABILITIES_OFF');
  });

  it('sees a switch turned off together with an edit of another document', async () => {
    const { other, places, open, warm } = workspace(watchBudget);
    await warm();
    const state = resolve(other, CapabilityStateService);
    expect((await state.setCapabilityState({}, [{ kind: 'skill', id: 'b-one', enabled: false }])).errors).toEqual([]);
    const alphaSkill = path.join(places.pluginsDir, 'alpha', 'skills', 'a-one', 'SKILL.md');
    fs.writeFileSync(alphaSkill, skill('a-one')['SKILL.md'].replace('The a-one skill', 'The edited a-one skill'));
    const both = await open();
    expect(skillIds(both)).toEqual(['a-one', 'pdf']);
    expect(both.find('skill', 'a-one')?.description).toBe('The edited a-one skill');
    // Switched on again with the edited document itself switched off, in one open.
    await warm();
    expect(
      (
        await state.setCapabilityState({}, [
          { kind: 'skill', id: 'b-one', enabled: true },
          { kind: 'skill', id: 'a-one', enabled: false },
        ])
      ).errors,
    ).toEqual([]);
    fs.writeFileSync(alphaSkill, skill('a-one')['SKILL.md']);
    expect(skillIds(await open())).toEqual(['b-one', 'pdf']);
  });

  it('holds an edited task of a held plugin, and holds again what an approved plugin runs once edited', async () => {
    const { other, places, open, warm } = workspace(watchBudget);
    const report = path.join(places.pluginsDir, 'alpha', 'tasks', 'report');
    const held = (session: Session) => session.find('task', 'report')?.held?.decidedBy ?? null;
    const before = await warm();
    expect(held(before)).toBe('unapproved-plugin');
    fs.writeFileSync(path.join(report, 'TASK.md'), task('report')['TASK.md'].replace('report task', 'edited report task'));
    const edited = await open();
    expect(edited.find('task', 'report')?.description).toBe('edited report task');
    expect(held(edited)).toBe('unapproved-plugin');
    // The project's task, held for another reason and not edited, keeps its held record.
    expect(edited.find('task', 'build')).toBe(before.find('task', 'build'));
    await resolve(other, TrustService).approvePlugin('alpha');
    expect(held(await warm())).toBeNull();
    // What it runs now is another file: no longer what was approved.
    writeTree(report, { 'other.mjs': 'console.log("other");\n' });
    fs.writeFileSync(path.join(report, 'TASK.md'), task('report')['TASK.md'].replace('run.mjs', 'other.mjs'));
    expect(held(await open())).toBe('unapproved-plugin');
  });

  it('sees a document removed and another added in one open', async () => {
    const { places, open, warm } = workspace(watchBudget);
    const before = await warm();
    const skills = path.join(places.pluginsDir, 'beta', 'skills');
    fs.rmSync(path.join(skills, 'b-one'), { recursive: true });
    writeTree(skills, { 'b-two': skill('b-two') });
    const after = await open();
    expect(skillIds(after)).toEqual(['a-one', 'b-two', 'pdf']);
    expect(after.find('skill', 'pdf')).toBe(before.find('skill', 'pdf'));
    // And one removed in one plugin while one is added in another.
    await warm();
    fs.rmSync(path.join(skills, 'b-two'), { recursive: true });
    writeTree(path.join(places.pluginsDir, 'alpha', 'skills'), { 'a-two': skill('a-two') });
    expect(skillIds(await open())).toEqual(['a-one', 'a-two', 'pdf']);
  });
});
