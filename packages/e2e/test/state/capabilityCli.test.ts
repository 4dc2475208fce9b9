import fs from 'node:fs';
import path from 'node:path';
import { CLI_ENTRY } from '@loadout/cli/testing';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeContainers, installPlugin, openContainer, skillFolder, workspace, type Workspace } from '@loadout/state/testing';
import { type CliRun, spawnLoadout } from '../spawnLoadout.js';

const CLI = CLI_ENTRY;

/** Runs the built `loadout` command against the workspace, the way a user would. */
function loadout(ws: Workspace, ...args: string[]): Promise<CliRun> {
  return spawnLoadout(args, {
    LOADOUT_HOME: ws.places.home,
    LOADOUT_CAPABILITIES_DIR: ws.places.capabilitiesDir,
    LOADOUT_DATA_DIR: ws.places.dataDir,
  });
}

async function json<T = Record<string, unknown>>(ws: Workspace, ...args: string[]): Promise<T> {
  const run = await loadout(ws, ...args, '--json');
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  return JSON.parse(run.stdout) as T;
}

interface SessionJson {
  skills: { id: string }[];
  affordances: { id: string }[];
  skillsBlock: string;
  affordanceBlock: string;
}
interface StateJson {
  capabilities: {
    kind: string;
    id: string;
    enabled: boolean;
    decidedBy: string;
    gates: Record<string, { configured: boolean; active: boolean; decidedBy: string }>;
  }[];
}

/** The owner's pdf skill with two gates, a notes skill and an affordance; a disabled plugin with charts. */
function fixture(): Workspace & { other: string } {
  const ws = workspace({
    capabilities: {
      skills: { pdf: skillFolder('pdf', { ocr: true, tables: true }), notes: skillFolder('notes', { fast: true }) },
      affordances: { 'shell.md': skillFolder('shell')['SKILL.md'] as string },
    },
  });
  const container = openContainer(ws.places);
  installPlugin(container, ws.places, 'extras', { skills: { charts: skillFolder('charts') } }, false);
  closeContainers();
  const other = path.join(ws.places.home, 'other');
  fs.mkdirSync(other);
  return { ...ws, other };
}

/** Every byte the state lives in: the database (with its WAL) and each config.json. */
function bytesOf(ws: Workspace): Record<string, string | null> {
  const files = [
    path.join(ws.places.dataDir, 'loadout.db'),
    path.join(ws.places.dataDir, 'loadout.db-wal'),
    path.join(ws.places.capabilitiesDir, 'config.json'),
    path.join(ws.project, '.agents', 'config.json'),
  ];
  return Object.fromEntries(files.map((file) => [file, fs.existsSync(file) ? fs.readFileSync(file).toString('base64') : null]));
}

beforeAll(() => {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`pnpm build\` before the end-to-end tests`);
});

afterEach(() => {
  closeContainers();
  removeTestdirs();
});

// Each run starts a Node process; on a shared two-core machine that takes most of a second.
describe('loadout capability (end to end)', { timeout: 180_000 }, () => {
  it('turns a skill off everywhere, back on for one project, reports gates and the dead warning, and refuses a disabled plugin', async () => {
    const ws = fixture();
    const skills = (session: SessionJson): string[] => session.skills.map((skill) => skill.id);

    const off = await json<{ errors: string[] }>(ws, 'capability', 'set', 'skill/pdf', '--disable');
    expect(off.errors).toEqual([]);
    for (const args of [[], ['--project', ws.project], ['--project', ws.other]]) {
      const session = await json<SessionJson>(ws, 'session', ...args);
      expect(skills(session)).toEqual(['notes']);
      expect(session.skillsBlock).not.toContain('pdf');
      expect(session.skillsBlock).toContain('notes');
    }

    const on = await loadout(ws, 'capability', 'set', 'skill/pdf', '--enable', '--project', ws.project);
    expect(on.code).toBe(0);
    expect(on.stdout).toContain('project-override');
    expect(skills(await json<SessionJson>(ws, 'session', '--project', ws.project))).toEqual(['notes', 'pdf']);
    expect(skills(await json<SessionJson>(ws, 'session', '--project', ws.other))).toEqual(['notes']);
    expect(skills(await json<SessionJson>(ws, 'session'))).toEqual(['notes']);

    const gateOff = await json<{ errors: string[]; warnings: string[] }>(
      ws,
      'capability',
      'set',
      'skill/pdf',
      '--gate',
      'ocr=off',
      '--project',
      ws.project,
    );
    expect(gateOff).toMatchObject({ errors: [], warnings: [] });
    const state = await json<StateJson>(ws, 'capability', 'state', '--project', ws.project);
    const pdf = state.capabilities.find((entry) => entry.id === 'pdf');
    expect(pdf).toMatchObject({
      enabled: true,
      decidedBy: 'project-override',
      gates: {
        ocr: { configured: false, active: false, decidedBy: 'project-config' },
        tables: { configured: true, active: true, decidedBy: 'declared-default' },
      },
    });
    expect(JSON.parse(fs.readFileSync(path.join(ws.project, '.agents', 'config.json'), 'utf8'))).toEqual({
      gates: { 'skill/pdf': { ocr: false } },
    });

    const dead = await loadout(ws, 'capability', 'set', 'skill/pdf', '--gate', 'tables=off', '--project', ws.project);
    expect(dead.code).toBe(0);
    expect(dead.stdout).toContain('warning: skill/pdf is enabled but every gate is off (ocr, tables): present but dead');

    const before = bytesOf(ws);
    const refused = await loadout(ws, 'capability', 'set', 'skill/charts', '--enable', '--json');
    expect(refused.code).toBe(1);
    const result = JSON.parse(refused.stdout) as {
      errors: { code: string; message: string }[];
      written: boolean;
      capabilities: unknown[];
      error: unknown;
    };
    const disabledPlugin = {
      code: 'STATE_PLUGIN_DISABLED',
      message: 'cannot enable skill/charts: it comes from plugin "extras", which is disabled; enable the plugin first',
    };
    expect(result.errors).toEqual([disabledPlugin]);
    expect(result.error).toEqual(disabledPlugin);
    expect(result.written).toBe(false);
    expect(result.capabilities.length).toBeGreaterThan(0);
    expect(refused.stderr).toBe(
      'loadout: cannot enable skill/charts: it comes from plugin "extras", which is disabled; enable the plugin first\n',
    );
    const human = await loadout(ws, 'capability', 'set', 'skill/charts', '--enable', '--gate', 'fast=on', '--project', ws.project);
    expect(human.code).toBe(1);
    // The refusal is said once, on stderr; stdout says what came of the request.
    expect(human.stdout).toBe('nothing was changed\n');
    expect(human.stderr).toBe(
      'loadout: cannot enable skill/charts: it comes from plugin "extras", which is disabled; enable the plugin first; skill/charts: gate "fast" is not declared (it declares no gates)\n',
    );
    expect(bytesOf(ws)).toEqual(before);
  });

  it('refuses bad usage with exit status 2 and a bad value with exit status 1, writing nothing', async () => {
    const ws = fixture();
    const before = bytesOf(ws);
    const usage = await loadout(ws, 'capability', 'set', 'pdf', '--enable', '--json');
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toEqual({ error: { code: 'USAGE', message: 'expected KIND/ID, e.g. skill/pdf, not "pdf"' } });
    expect((await loadout(ws, 'capability', 'set', 'skill/pdf', '--enable', '--disable')).code).toBe(2);
    expect((await loadout(ws, 'capability', 'set', 'skill/pdf')).code).toBe(2);
    const value = await loadout(ws, 'capability', 'set', 'skill/pdf', '--gate', 'ocr=maybe', '--json');
    expect(value.code).toBe(1);
    expect((JSON.parse(value.stdout) as { errors: unknown[] }).errors).toEqual([
      { code: 'STATE_VALUE_INVALID', message: 'skill/pdf: gate "ocr" must be on or off, not "maybe"' },
    ]);
    const project = await loadout(ws, 'capability', 'state', '--project', path.join(ws.places.home, 'missing'), '--json');
    expect(project.code).toBe(1);
    expect((JSON.parse(project.stdout) as { error: { code: string } }).error.code).toBe('PROJECT_NOT_FOUND');
    // The first command created the database; a refused write must not have changed it since.
    const created = bytesOf(ws);
    await loadout(ws, 'capability', 'set', 'skill/nope', '--disable');
    expect(bytesOf(ws)).toEqual(created);
    expect(before[path.join(ws.places.capabilitiesDir, 'config.json')]).toBeNull();
    expect(created[path.join(ws.places.capabilitiesDir, 'config.json')]).toBeNull();
  });

  it('loses no update when processes set state at the same moment', async () => {
    const ws = fixture();
    const configFile = path.join(ws.places.capabilitiesDir, 'config.json');
    fs.writeFileSync(configFile, '{\n  "owner": "kept"\n}\n');
    for (const value of ['off', 'on', 'off', 'on']) {
      // Different capabilities, different gates, one config.json, one database, all at once.
      const runs = await Promise.all([
        loadout(ws, 'capability', 'set', 'skill/pdf', value === 'on' ? '--enable' : '--disable', '--gate', `ocr=${value}`, '--json'),
        loadout(ws, 'capability', 'set', 'skill/pdf', '--gate', `tables=${value}`, '--json'),
        loadout(ws, 'capability', 'set', 'skill/notes', value === 'on' ? '--enable' : '--disable', '--gate', `fast=${value}`, '--json'),
        loadout(ws, 'capability', 'set', 'affordance/shell', value === 'on' ? '--enable' : '--disable', '--json'),
      ]);
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
      const on = value === 'on';
      expect(JSON.parse(fs.readFileSync(configFile, 'utf8'))).toEqual({
        owner: 'kept',
        gates: { 'skill/pdf': { ocr: on, tables: on }, 'skill/notes': { fast: on } },
      });
      const state = await json<StateJson>(ws, 'capability', 'state');
      const enabled = Object.fromEntries(
        state.capabilities
          .filter((entry) => entry.kind !== 'skill' || entry.id !== 'charts')
          .map((entry) => [`${entry.kind}/${entry.id}`, entry.enabled]),
      );
      expect(enabled).toEqual({ 'skill/notes': on, 'skill/pdf': on, 'affordance/shell': on });
      expect(fs.existsSync(`${configFile}.lock`)).toBe(false);
    }
  });
});
