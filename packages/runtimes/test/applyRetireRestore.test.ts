import fs from 'node:fs';
import path from 'node:path';
import { resolve } from '@loadout/kernel';
import { RACY_MS } from '@loadout/files';
import { removeTestdirs } from '@loadout/files/testing';
import { PluginRegistry } from '@loadout/plugins';
import { CapabilityStateService } from '@loadout/state';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeApplier } from '../src/index.js';
import { MANIFEST_FILE } from '../src/RuntimeManifest.js';
import { STAGING_FOLDER } from '../src/RuntimeApplier.js';
import { TRASH_FOLDER } from '../src/RuntimeTrash.js';
import { closeLoadouts, installPlugin, machine, type Machine, openLoadout, skill, snapshot } from '../src/testing/index.js';

afterEach(() => {
  closeLoadouts();
  removeTestdirs();
});

/** The owner's `notes` (with a script), a project skill `deploy`, a plugin `charts`. */
function fixture(): Machine {
  return machine({
    capabilities: { skills: { notes: { 'SKILL.md': skill('notes'), scripts: { 'run.sh': '#!/bin/sh\necho notes\n' } } } },
    project: { skills: { deploy: { 'SKILL.md': skill('deploy') } } },
  });
}

/** Everything a run could touch except the database (opening a session may write its journal). */
function tree(m: Machine): Record<string, string> {
  return Object.fromEntries(Object.entries(snapshot(m.base)).filter(([file]) => !/loadout\.db/.test(file)));
}

describe('--dry-run and --check', () => {
  it('leave the whole file tree byte-identical, before and after an apply', async () => {
    const m = fixture();
    fs.chmodSync(path.join(m.places.capabilitiesDir, 'skills/notes/scripts/run.sh'), 0o755);
    const container = openLoadout(m);
    installPlugin(container, m, 'charts', { skills: { charts: { 'SKILL.md': skill('charts') } } });
    const applier = resolve(container, RuntimeApplier);

    const untouched = tree(m);
    const dry = await applier.apply({ project: m.project, mode: 'dry-run' });
    const check = await applier.apply({ project: m.project, mode: 'check' });
    expect(tree(m)).toEqual(untouched);
    expect(dry.applied).toBe(false);
    // claude-code: notes, charts (personal), deploy (project); codex: notes, charts (user), deploy is read in place.
    expect(dry.changeCount).toBe(5);
    expect(check.upToDate).toBe(false);
    expect(check.runtimes.map((part) => part.changes)).toEqual(dry.runtimes.map((part) => part.changes));

    const applied = await applier.apply({ project: m.project });
    expect(applied.runtimes.flatMap((part) => part.changes)).toEqual(dry.runtimes.flatMap((part) => part.changes));
    expect(fs.statSync(path.join(m.home, '.claude/skills/notes/scripts/run.sh')).mode & 0o777).toBe(0o755);

    const settled = tree(m);
    expect((await applier.apply({ project: m.project, mode: 'check' })).upToDate).toBe(true);
    await applier.apply({ project: m.project, mode: 'dry-run' });
    expect(tree(m)).toEqual(settled);
  });
});

describe('retire and restore', () => {
  it('a disabled skill is retired into the trash by the next apply, and restore brings it back byte for byte', async () => {
    const m = fixture();
    const container = openLoadout(m);
    const applier = resolve(container, RuntimeApplier);
    await applier.apply({ project: m.project });
    const written = path.join(m.home, '.claude/skills/notes');
    const before = snapshot(written);

    const state = resolve(container, CapabilityStateService);
    const off = await state.setCapabilityState({}, [{ kind: 'skill', id: 'notes', enabled: false }]);
    expect(off.errors).toEqual([]);
    const result = await applier.apply({ project: m.project });
    expect(result.retired.map((entry) => [entry.name, entry.runtime, entry.path])).toEqual([
      ['notes', 'claude-code', '$CLAUDE_CONFIG_DIR/skills/notes'],
      ['notes', 'codex, copilot-vscode, copilot-cli, opencode, goose, gemini-cli', '~/.agents/skills/notes'],
    ]);
    expect(fs.existsSync(written)).toBe(false);
    expect(fs.existsSync(path.join(m.home, '.agents/skills/notes'))).toBe(false);
    // Nothing managed is left in the personal folder, so its manifest is gone too.
    expect(fs.readdirSync(path.join(m.home, '.claude/skills'))).toEqual([]);
    expect(applier.listRetired().retired.map((entry) => entry.name)).toEqual(['notes', 'notes']);
    expect(fs.readdirSync(path.join(m.places.dataDir, TRASH_FOLDER))).toHaveLength(2);

    const claudeEntry = applier.listRetired().retired.find((entry) => entry.runtime === 'claude-code');
    const restored = await applier.restore(claudeEntry?.id ?? '');
    expect(restored.restored.path).toBe('$CLAUDE_CONFIG_DIR/skills/notes');
    expect(snapshot(written)).toEqual(before);
    expect(applier.listRetired().retired.map((entry) => entry.runtime)).toEqual([
      'codex, copilot-vscode, copilot-cli, opencode, goose, gemini-cli',
    ]);

    // Turned on again, the restored copy is simply Loadout's own: nothing to do for claude-code.
    await state.setCapabilityState({}, [{ kind: 'skill', id: 'notes', enabled: true }]);
    const again = await applier.apply({ project: m.project, runtimes: ['claude-code'] });
    expect(again.changeCount).toBe(0);
  });

  it('restoring never overwrites, and an unknown entry is not found', async () => {
    const m = fixture();
    const container = openLoadout(m);
    const applier = resolve(container, RuntimeApplier);
    await applier.apply({ runtimes: ['claude-code'] });
    fs.rmSync(path.join(m.places.capabilitiesDir, 'skills/notes'), { recursive: true });
    const { retired } = await applier.apply({ runtimes: ['claude-code'] });
    fs.mkdirSync(path.join(m.home, '.claude/skills/notes'));
    fs.writeFileSync(path.join(m.home, '.claude/skills/notes/SKILL.md'), skill('notes', 'Mine now.\n'));
    await expect(applier.restore(retired[0]?.id ?? '')).rejects.toMatchObject({ code: 'RESTORE_OCCUPIED' });
    expect(applier.listRetired().retired).toHaveLength(1);
    await expect(applier.restore('20261202T000000Z-nope-00000000')).rejects.toMatchObject({ code: 'TRASH_ENTRY_NOT_FOUND' });
    await expect(applier.restore('../../etc')).rejects.toMatchObject({ code: 'TRASH_ENTRY_NOT_FOUND' });
  });

  it('off means off for a plugin: disabling it retires every skill it had written', async () => {
    const m = fixture();
    const container = openLoadout(m);
    installPlugin(container, m, 'charts', { skills: { charts: { 'SKILL.md': skill('charts') }, 'plot.md': skill('plot') } });
    const applier = resolve(container, RuntimeApplier);
    await applier.apply({ runtimes: ['claude-code'] });
    expect(fs.existsSync(path.join(m.home, '.claude/skills/plot/SKILL.md'))).toBe(true);
    resolve(container, PluginRegistry).setEnabled('charts', false);
    const result = await applier.apply({ runtimes: ['claude-code'] });
    expect(result.retired.map((entry) => entry.name).sort()).toEqual(['charts', 'plot']);
    expect(fs.readdirSync(path.join(m.home, '.claude/skills')).sort()).toEqual([MANIFEST_FILE, 'notes']);
  });

  it('a project skill turned off for the project is retired from the project folder only', async () => {
    const m = fixture();
    const container = openLoadout(m);
    const applier = resolve(container, RuntimeApplier);
    await applier.apply({ project: m.project, runtimes: ['claude-code'] });
    expect(fs.existsSync(path.join(m.project, '.claude/skills/deploy/SKILL.md'))).toBe(true);
    await resolve(container, CapabilityStateService).setCapabilityState({ project: m.project }, [
      { kind: 'skill', id: 'deploy', enabled: false },
    ]);
    const result = await applier.apply({ project: m.project, runtimes: ['claude-code'] });
    expect(result.retired.map((entry) => entry.path)).toEqual(['<project>/.claude/skills/deploy']);
    expect(fs.existsSync(path.join(m.home, '.claude/skills/notes/SKILL.md'))).toBe(true);
  });

  it('a global skill turned off for one project only is reported: the user folder serves every project', async () => {
    const m = fixture();
    const container = openLoadout(m);
    const applier = resolve(container, RuntimeApplier);
    await resolve(container, CapabilityStateService).setCapabilityState({ project: m.project }, [
      { kind: 'skill', id: 'notes', enabled: false },
    ]);
    const result = await applier.apply({ project: m.project, runtimes: ['claude-code'] });
    expect(result.findings.map((finding) => finding.code)).toEqual(['SKILL_OFF_IN_PROJECT_ONLY']);
    expect(fs.existsSync(path.join(m.home, '.claude/skills/notes/SKILL.md'))).toBe(true);
  });
  it("a global skill turned on for one project only goes to that project's folder, not the user's", async () => {
    const m = fixture();
    const container = openLoadout(m);
    const state = resolve(container, CapabilityStateService);
    await state.setCapabilityState({}, [{ kind: 'skill', id: 'notes', enabled: false }]);
    await state.setCapabilityState({ project: m.project }, [{ kind: 'skill', id: 'notes', enabled: true }]);
    const result = await resolve(container, RuntimeApplier).apply({ project: m.project });
    const changes = result.runtimes.flatMap((part) => part.changes.map((change) => [part.runtime, change.action, change.path]));
    expect(changes).toEqual([
      ['claude-code', 'create', '<project>/.claude/skills/deploy'],
      ['claude-code', 'create', '<project>/.claude/skills/notes'],
    ]);
    // Codex's project folder is Loadout's own project root: nothing is copied into it.
    const codex = result.runtimes.find((part) => part.runtime === 'codex');
    expect(codex?.findings.map((finding) => finding.code)).toEqual(['RUNTIME_ROOT_IS_LOADOUT_ROOT']);
    expect(fs.existsSync(path.join(m.project, '.agents/skills/notes'))).toBe(false);
  });
});

describe('updates and crash recovery', () => {
  it("a changed source replaces Loadout's own unedited copy", async () => {
    const m = fixture();
    const container = openLoadout(m);
    const applier = resolve(container, RuntimeApplier);
    await applier.apply({ runtimes: ['claude-code'] });
    fs.writeFileSync(path.join(m.places.capabilitiesDir, 'skills/notes/SKILL.md'), skill('notes', 'Version two.\n'));
    fs.rmSync(path.join(m.places.capabilitiesDir, 'skills/notes/scripts'), { recursive: true });
    const result = await applier.apply({ runtimes: ['claude-code'] });
    expect(result.runtimes[0]?.changes.map((change) => change.action)).toEqual(['update']);
    expect(fs.readFileSync(path.join(m.home, '.claude/skills/notes/SKILL.md'), 'utf8')).toContain('Version two.');
    expect(fs.existsSync(path.join(m.home, '.claude/skills/notes/scripts'))).toBe(false);
    expect(fs.existsSync(path.join(m.home, '.claude/skills', STAGING_FOLDER))).toBe(false);
  });

  it('files written but the manifest not: the next run adopts them; nothing lost, nothing doubled', async () => {
    const m = fixture();
    const container = openLoadout(m);
    const applier = resolve(container, RuntimeApplier);
    const root = path.join(m.home, '.claude/skills');
    await applier.apply({ runtimes: ['claude-code'] });
    // The state a crash between the renames and the manifest write leaves: folders, no manifest.
    fs.rmSync(path.join(root, MANIFEST_FILE));
    fs.mkdirSync(path.join(root, STAGING_FOLDER, 'notes-deadbeef'), { recursive: true });
    fs.writeFileSync(path.join(root, STAGING_FOLDER, 'notes-deadbeef', 'SKILL.md'), 'half');

    const plan = await applier.apply({ runtimes: ['claude-code'], mode: 'check' });
    expect(plan.upToDate).toBe(false);
    expect(plan.runtimes[0]?.changes.map((change) => [change.action, change.name])).toEqual([['adopt', 'notes']]);
    await applier.apply({ runtimes: ['claude-code'] });
    expect(fs.readdirSync(root).sort()).toEqual([MANIFEST_FILE, 'notes']);
    expect((await applier.apply({ runtimes: ['claude-code'], mode: 'check' })).upToDate).toBe(true);

    // Adopted means managed: turning it off retires it like any other.
    fs.rmSync(path.join(m.places.capabilitiesDir, 'skills/notes'), { recursive: true });
    expect((await applier.apply({ runtimes: ['claude-code'] })).retired.map((entry) => entry.name)).toEqual(['notes']);
  });

  it('a staging folder left in a root with nothing to change is cleared by the next apply', async () => {
    const m = fixture();
    const container = openLoadout(m);
    const applier = resolve(container, RuntimeApplier);
    await applier.apply({ runtimes: ['claude-code'] });
    const leftover = path.join(m.home, '.claude/skills', STAGING_FOLDER, 'notes-0badf00d');
    fs.mkdirSync(leftover, { recursive: true });
    fs.writeFileSync(path.join(leftover, 'SKILL.md'), 'half');
    expect((await applier.apply({ runtimes: ['claude-code'] })).changeCount).toBe(0);
    expect(fs.existsSync(path.join(m.home, '.claude/skills', STAGING_FOLDER))).toBe(false);
  });

  it('a crash in the middle of an update (new files, old manifest) is adopted, not taken for a user edit', async () => {
    const m = fixture();
    const container = openLoadout(m);
    const applier = resolve(container, RuntimeApplier);
    const manifestFile = path.join(m.home, '.claude/skills', MANIFEST_FILE);
    await applier.apply({ runtimes: ['claude-code'] });
    const oldManifest = fs.readFileSync(manifestFile);
    fs.writeFileSync(path.join(m.places.capabilitiesDir, 'skills/notes/SKILL.md'), skill('notes', 'Version two.\n'));
    await applier.apply({ runtimes: ['claude-code'] });
    fs.writeFileSync(manifestFile, oldManifest);
    const result = await applier.apply({ runtimes: ['claude-code'] });
    expect(result.runtimes[0]?.changes.map((change) => change.action)).toEqual(['adopt']);
    expect(result.runtimes[0]?.findings).toEqual([]);
  });

  it('a retire interrupted after the move (manifest still lists it) is forgotten; the trash keeps the skill', async () => {
    const m = fixture();
    const container = openLoadout(m);
    const applier = resolve(container, RuntimeApplier);
    const manifestFile = path.join(m.home, '.claude/skills', MANIFEST_FILE);
    await applier.apply({ runtimes: ['claude-code'] });
    const manifest = fs.readFileSync(manifestFile);
    fs.rmSync(path.join(m.places.capabilitiesDir, 'skills/notes'), { recursive: true });
    await applier.apply({ runtimes: ['claude-code'] });
    fs.writeFileSync(manifestFile, manifest);
    const result = await applier.apply({ runtimes: ['claude-code'] });
    expect(result.runtimes[0]?.changes.map((change) => change.action)).toEqual(['forget']);
    expect(applier.listRetired().retired).toHaveLength(1);
    expect(fs.existsSync(manifestFile)).toBe(false);
  });

  it('a manifest that is not valid blocks the run with a clear finding and changes nothing', async () => {
    const m = fixture();
    const container = openLoadout(m);
    const applier = resolve(container, RuntimeApplier);
    await applier.apply({ runtimes: ['claude-code'] });
    fs.writeFileSync(path.join(m.home, '.claude/skills', MANIFEST_FILE), '{"version": 7}');
    // Old enough that the bundles' stamps would be trusted: a refused run must still not keep them.
    await new Promise((done) => setTimeout(done, RACY_MS + 100));
    const before = tree(m);
    const plan = await applier.apply({ runtimes: ['claude-code'], mode: 'dry-run' });
    expect(plan.ok).toBe(false);
    expect(plan.runtimes[0]?.findings.map((finding) => finding.code)).toContain('RUNTIME_MANIFEST_INVALID');
    const applied = await applier.apply({ runtimes: ['claude-code'] });
    expect(applied).toMatchObject({ ok: false, applied: false });
    expect(applied.runtimes[0]?.status).toBe('blocked');
    expect(tree(m)).toEqual(before);
  });
});
