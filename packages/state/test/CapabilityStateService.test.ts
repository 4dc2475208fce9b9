import fs from 'node:fs';
import path from 'node:path';
import { Database } from '@loadout/db';
import { resolve } from '@loadout/kernel';
import { removeTestdirs } from '@loadout/files/testing';
import { PluginManager } from '@loadout/plugins';
import { afterEach, describe, expect, it } from 'vitest';
import { type CapabilityStateEntry, CapabilityStateService, CapabilityStateStore } from '../src/index.js';
import {
  capabilityMarkdown,
  closeContainers,
  installPlugin,
  openContainer,
  skillFolder,
  taskFolder,
  workspace,
} from '../src/testing/index.js';

afterEach(() => {
  closeContainers();
  removeTestdirs();
});

/** The owner has pdf (two gates), notes and a task; the project shadows notes; two plugins. */
function fixture() {
  const ws = workspace({
    capabilities: {
      skills: { pdf: skillFolder('pdf', { ocr: true, tables: false }), notes: skillFolder('notes') },
      affordances: { 'shell.md': capabilityMarkdown('shell') },
      tasks: { 'word-count': taskFolder('word-count') },
    },
    project: { skills: { notes: skillFolder('notes'), local: skillFolder('local', { fast: true }) } },
  });
  const container = openContainer(ws.places);
  installPlugin(container, ws.places, 'old', { skills: { shared: skillFolder('shared'), legacy: skillFolder('legacy') } }, false);
  installPlugin(container, ws.places, 'tools', { skills: { shared: skillFolder('shared'), lint: skillFolder('lint', { fix: true }) } });
  const service = resolve(container, CapabilityStateService);
  return { ...ws, container, service };
}

function entryOf(entries: readonly CapabilityStateEntry[], kind: string, id: string): CapabilityStateEntry {
  const found = entries.find((entry) => entry.kind === kind && entry.id === id);
  if (found === undefined) throw new Error(`no entry ${kind}/${id}`);
  return found;
}

/** Everything a refused write must leave alone: the state rows and every config.json. */
function snapshot(ws: { places: { capabilitiesDir: string }; project: string }, container: ReturnType<typeof openContainer>) {
  const rows = resolve(container, Database)
    .prepare('SELECT kind, id, scope, surfaced, plugin FROM capability_state ORDER BY kind, id, scope')
    .all();
  const read = (file: string): string | null => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null);
  return {
    rows,
    global: read(path.join(ws.places.capabilitiesDir, 'config.json')),
    project: read(path.join(ws.project, '.agents', 'config.json')),
    projectLock: fs.existsSync(path.join(ws.project, '.agents', 'config.json.lock')),
  };
}

describe('resolveCapabilityState', () => {
  it('shows everything on in a fresh workspace, one entry per kind and id, every installed plugin included', async () => {
    const { service, project } = fixture();
    const entries = await service.resolveCapabilityState({ project });
    expect(entries.map((entry) => `${entry.kind}/${entry.id}`)).toEqual([
      'skill/legacy',
      'skill/lint',
      'skill/local',
      'skill/notes',
      'skill/pdf',
      'skill/shared',
      'affordance/shell',
      'task/word-count',
    ]);
    expect(entryOf(entries, 'skill', 'pdf')).toMatchObject({
      level: 'global',
      plugin: null,
      installed: true,
      surfaced: true,
      enabled: true,
      active: true,
      decidedBy: 'declared-default',
      gates: {
        ocr: { configured: true, active: true, decidedBy: 'declared-default' },
        tables: { configured: false, active: false, decidedBy: 'declared-default' },
      },
    });
  });

  it("reports a disabled plugin's capability as below the floor, and lists what a winner shadows", async () => {
    const { service, project, places } = fixture();
    const entries = await service.resolveCapabilityState({ project });
    expect(entryOf(entries, 'skill', 'legacy')).toMatchObject({
      plugin: 'old',
      installed: true,
      surfaced: false,
      enabled: false,
      active: false,
      decidedBy: 'plugin-disabled',
    });
    // The enabled plugin's copy is the one sessions show, though the disabled plugin came first.
    const shared = entryOf(entries, 'skill', 'shared');
    expect(shared).toMatchObject({ plugin: 'tools', enabled: true, decidedBy: 'declared-default' });
    expect(shared.shadowed).toEqual([
      { level: 'global', plugin: 'old', path: path.join(places.pluginsDir, 'old', 'skills', 'shared', 'SKILL.md') },
    ]);
    const notes = entryOf(entries, 'skill', 'notes');
    expect(notes.level).toBe('project');
    expect(notes.shadowed).toEqual([
      { level: 'global', plugin: null, path: path.join(places.capabilitiesDir, 'skills', 'notes', 'SKILL.md') },
    ]);
  });

  it("reads gates from the project's config.json before the owner's", async () => {
    const { service, project, places } = fixture();
    fs.writeFileSync(
      path.join(places.capabilitiesDir, 'config.json'),
      JSON.stringify({ gates: { 'skill/pdf': { ocr: false, tables: true } } }),
    );
    fs.writeFileSync(path.join(project, '.agents', 'config.json'), JSON.stringify({ gates: { 'skill/pdf': { tables: false } } }));
    const inProject = entryOf(await service.resolveCapabilityState({ project }), 'skill', 'pdf');
    expect(inProject.gates).toEqual({
      ocr: { configured: false, active: false, decidedBy: 'global-config' },
      tables: { configured: false, active: false, decidedBy: 'project-config' },
    });
    expect(inProject.active).toBe(false);
    const globally = entryOf(await service.resolveCapabilityState({}), 'skill', 'pdf');
    expect(globally.gates.tables).toEqual({ configured: true, active: true, decidedBy: 'global-config' });
  });

  it('refuses a project folder that does not exist', async () => {
    const { service, places } = fixture();
    await expect(service.resolveCapabilityState({ project: path.join(places.home, 'nowhere') })).rejects.toThrow(
      expect.objectContaining({ code: 'PROJECT_NOT_FOUND' }),
    );
  });

  it('never shows state stored for a capability that no longer exists', async () => {
    const { service, places } = fixture();
    const result = await service.setCapabilityState({}, [{ kind: 'skill', id: 'notes', enabled: false }]);
    expect(result.errors).toEqual([]);
    fs.rmSync(path.join(places.capabilitiesDir, 'skills', 'notes'), { recursive: true });
    expect((await service.resolveCapabilityState({})).some((entry) => entry.id === 'notes')).toBe(false);
  });
});

describe('setCapabilityState', () => {
  it('writes the global default without a project and an override with one', async () => {
    const { service, project } = fixture();
    const off = await service.setCapabilityState({}, [{ kind: 'skill', id: 'PDF', enabled: false }]);
    expect(off.errors).toEqual([]);
    expect(entryOf(off.capabilities, 'skill', 'pdf')).toMatchObject({ enabled: false, active: false, decidedBy: 'global-default' });
    expect(entryOf(await service.resolveCapabilityState({ project }), 'skill', 'pdf')).toMatchObject({
      enabled: false,
      decidedBy: 'global-default',
    });

    const on = await service.setCapabilityState({ project }, [{ kind: 'skill', id: 'pdf', enabled: 'on' }]);
    expect(on.errors).toEqual([]);
    expect(entryOf(on.capabilities, 'skill', 'pdf')).toMatchObject({ enabled: true, decidedBy: 'project-override' });
    expect(entryOf(await service.resolveCapabilityState({}), 'skill', 'pdf')).toMatchObject({
      enabled: false,
      decidedBy: 'global-default',
    });
  });

  it("writes gates to the scope's own config.json, keeping every other key", async () => {
    const { service, project, places } = fixture();
    const globalFile = path.join(places.capabilitiesDir, 'config.json');
    fs.writeFileSync(globalFile, '{\n  "owner": "me",\n  "gates": { "skill/lint": { "fix": false } }\n}\n');
    const global = await service.setCapabilityState({}, [{ kind: 'skill', id: 'pdf', gates: { tables: true } }]);
    expect(global.errors).toEqual([]);
    expect(JSON.parse(fs.readFileSync(globalFile, 'utf8'))).toEqual({
      owner: 'me',
      gates: { 'skill/lint': { fix: false }, 'skill/pdf': { tables: true } },
    });

    const local = await service.setCapabilityState({ project }, [{ kind: 'skill', id: 'local', gates: { FAST: 'off' } }]);
    expect(local.errors).toEqual([]);
    expect(JSON.parse(fs.readFileSync(path.join(project, '.agents', 'config.json'), 'utf8'))).toEqual({
      gates: { 'skill/local': { fast: false } },
    });
    expect(entryOf(local.capabilities, 'skill', 'local').gates.fast).toEqual({
      configured: false,
      active: false,
      decidedBy: 'project-config',
    });
  });

  it('warns when a capability is enabled with every gate off: present but dead', async () => {
    const { service, project } = fixture();
    const result = await service.setCapabilityState({ project }, [
      { kind: 'skill', id: 'pdf', enabled: true, gates: { ocr: false, tables: false } },
    ]);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual(['skill/pdf is enabled but every gate is off (ocr, tables): present but dead']);
    expect(entryOf(result.capabilities, 'skill', 'pdf')).toMatchObject({ enabled: true, active: false });
  });

  it('validates everything first: any error and nothing is written', async () => {
    const { service, project, container, places } = fixture();
    fs.writeFileSync(path.join(places.capabilitiesDir, 'config.json'), '{"keep": true}');
    const before = snapshot({ places, project }, container);
    const result = await service.setCapabilityState({ project }, [
      { kind: 'skill', id: 'pdf', enabled: false, gates: { ocr: false } },
      { kind: 'skill', id: 'nope', enabled: false },
      { kind: 'widget', id: 'pdf', enabled: false },
      { kind: 'skill', id: 'notes', gates: { speed: true } },
      { kind: 'skill', id: 'pdf', gates: { tables: 'maybe' } },
      { kind: 'skill', id: 'lint', enabled: 'sometimes' },
      { kind: 'skill', id: 'legacy', enabled: true },
    ]);
    expect(result.errors.map((error) => error.toJSON())).toEqual([
      { code: 'STATE_CAPABILITY_UNKNOWN', message: `unknown capability skill/nope in project ${project}` },
      { code: 'STATE_KIND_UNKNOWN', message: 'unknown capability kind "widget" (kinds: skill, affordance, task)' },
      { code: 'STATE_GATE_UNDECLARED', message: 'skill/notes: gate "speed" is not declared (it declares no gates)' },
      { code: 'STATE_VALUE_INVALID', message: 'skill/pdf: gate "tables" must be on or off, not "maybe"' },
      { code: 'STATE_VALUE_INVALID', message: 'skill/lint: enabled must be on or off, not "sometimes"' },
      {
        code: 'STATE_PLUGIN_DISABLED',
        message: 'cannot enable skill/legacy: it comes from plugin "old", which is disabled; enable the plugin first',
      },
    ]);
    expect(result.warnings).toEqual([]);
    expect(result.written).toBe(false);
    expect(snapshot({ places, project }, container)).toEqual(before);
    expect(entryOf(result.capabilities, 'skill', 'pdf').enabled).toBe(true);
  });

  it('refuses one capability asked to be both on and off', async () => {
    const { service } = fixture();
    const result = await service.setCapabilityState({}, [
      { kind: 'skill', id: 'pdf', enabled: true, gates: { ocr: true } },
      { kind: 'skill', id: 'Pdf', enabled: false, gates: { ocr: false } },
    ]);
    expect(result.errors.map((error) => [error.code, error.message])).toEqual([
      ['STATE_REQUEST_CONFLICT', 'skill/pdf: asked to be both enabled and disabled'],
      ['STATE_REQUEST_CONFLICT', 'skill/pdf: gate "ocr" asked to be both on and off'],
    ]);
  });

  it('throws a coded error for a malformed batch, before reading anything', async () => {
    const { service } = fixture();
    await expect(service.setCapabilityState({}, [{ kind: 'skill', id: 'pdf', enable: true } as never])).rejects.toMatchObject({
      code: 'STATE_INPUT_INVALID',
    });
    await expect(service.setCapabilityState({}, 'pdf' as never)).rejects.toMatchObject({ code: 'STATE_INPUT_INVALID' });
  });

  it('refuses to write over a config.json it cannot read, and changes nothing', async () => {
    const { service, project, container, places } = fixture();
    fs.writeFileSync(path.join(project, '.agents', 'config.json'), '{ broken');
    const before = snapshot({ places, project }, container);
    await expect(
      service.setCapabilityState({ project }, [{ kind: 'skill', id: 'pdf', enabled: false, gates: { ocr: false } }]),
    ).rejects.toMatchObject({ code: 'STATE_CONFIG_INVALID' });
    expect(snapshot({ places, project }, container)).toEqual(before);
  });

  it("may disable a disabled plugin's capability and set its gates: they apply once the plugin is enabled", async () => {
    const { service, container } = fixture();
    const result = await service.setCapabilityState({}, [{ kind: 'skill', id: 'legacy', enabled: false }]);
    expect(result.errors).toEqual([]);
    expect(await resolve(container, CapabilityStateStore).surfacedAt('skill', 'legacy', null)).toBe(false);
    expect(entryOf(result.capabilities, 'skill', 'legacy').decidedBy).toBe('plugin-disabled');
  });
});

describe('uninstalling a plugin', () => {
  it('forgets the state written for its capabilities and keeps the rest', async () => {
    const { service, container, project } = fixture();
    const set = await service.setCapabilityState({ project }, [
      { kind: 'skill', id: 'lint', enabled: false },
      { kind: 'skill', id: 'pdf', enabled: false },
    ]);
    expect(set.errors).toEqual([]);
    resolve(container, PluginManager).uninstall('tools');
    const store = resolve(container, CapabilityStateStore);
    expect(await store.surfacedAt('skill', 'lint', project)).toBeUndefined();
    expect(await store.surfacedAt('skill', 'pdf', project)).toBe(false);
    expect((await service.resolveCapabilityState({ project })).some((entry) => entry.id === 'lint')).toBe(false);
  });
});
