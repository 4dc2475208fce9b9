import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLI_ENTRY } from '@loadout/cli/testing';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type LevelsWorkspace, levelsWorkspace, skillText } from '@loadout/levels/testing';

const CLI = CLI_ENTRY;

afterEach(removeTestdirs);

function loadout(ws: LevelsWorkspace, ...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    cwd: ws.places.home,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LOADOUT_HOME: ws.places.home, LOADOUT_DATA_DIR: ws.places.dataDir },
  });
  return {
    status: run.status,
    stdout: run.stdout,
    stderr: run.stderr,
    json: <T = Record<string, unknown>>() => JSON.parse(run.stdout) as T,
  };
}

interface Listed {
  id: string;
  name: string;
  level: string;
  on: boolean;
  path: string;
}
interface StateJson {
  capabilities: { kind: string; id: string; enabled: boolean; decidedBy: string; level: string }[];
}

describe('loadout skills / servers transfer, end to end', () => {
  it('moves a project skill to global over a collision: -2 and (2), resources beside it, off state carried, project copy gone', () => {
    const ws = levelsWorkspace({
      capabilities: { skills: { pdf: { 'SKILL.md': skillText('pdf', 'the global pdf') } } },
      project: {
        skills: {
          pdf: {
            'SKILL.md': skillText('pdf', 'the project pdf'),
            scripts: { 'extract.py': 'print("pages")\n' },
            reference: { 'forms.md': '# Forms\n' },
          },
        },
      },
    });
    // The project's pdf holds a script: held until the project is trusted, and a move never lifts a hold.
    expect(loadout(ws, 'trust', ws.project).status).toBe(0);
    const off = loadout(ws, 'capability', 'set', 'skill/pdf', '--disable', '--project', ws.project, '--json');
    expect(off.status, off.stderr).toBe(0);

    const moved = loadout(ws, 'skills', 'transfer', 'pdf', '--from', `project:${ws.project}`, '--to', 'global', '--json');
    expect(moved.status, moved.stderr).toBe(0);
    const landed = path.join(ws.places.capabilitiesDir, 'skills/pdf-2');
    expect(moved.json()).toMatchObject({
      moved: true,
      record: { kind: 'skill', id: 'pdf-2', name: 'pdf (2)', level: 'global', plugin: null, path: path.join(landed, 'SKILL.md') },
      previous: { id: 'pdf', name: 'pdf' },
      surfaced: false,
    });
    expect(fs.readFileSync(path.join(landed, 'scripts/extract.py'), 'utf8')).toBe('print("pages")\n');
    expect(fs.readFileSync(path.join(landed, 'reference/forms.md'), 'utf8')).toBe('# Forms\n');
    expect(fs.existsSync(path.join(ws.project, '.agents/skills/pdf'))).toBe(false);
    expect(fs.readFileSync(path.join(ws.places.capabilitiesDir, 'skills/pdf/SKILL.md'), 'utf8')).toBe(skillText('pdf', 'the global pdf'));

    const listed = loadout(ws, 'skills', 'list', '--project', ws.project, '--json').json<Listed[]>();
    expect(listed.map(({ id, name, level, on }) => ({ id, name, level, on }))).toEqual([
      { id: 'pdf', name: 'pdf', level: 'global', on: true },
      { id: 'pdf-2', name: 'pdf (2)', level: 'global', on: false },
    ]);
    const state = loadout(ws, 'capability', 'state', '--json').json<StateJson>();
    expect(state.capabilities.find((entry) => entry.id === 'pdf-2')).toMatchObject({
      enabled: false,
      decidedBy: 'global-default',
      level: 'global',
    });
    const session = loadout(ws, 'session', '--project', ws.project, '--json').json<{ skills: { id: string }[] }>();
    expect(session.skills.map((skill) => skill.id)).toEqual(['pdf']);
  });

  it('moves MyServer.json to global beside myserver.json, and back into another project', () => {
    const ws = levelsWorkspace({
      capabilities: { servers: { 'myserver.json': JSON.stringify({ name: 'Theirs', url: 'https://a.example/mcp' }) } },
      project: { servers: { 'MyServer.json': '{ "name": "Mine", "command": "node", "args": ["srv.js"] }\n' } },
    });
    // A project's server is held until the project is trusted, and a move never lifts a hold.
    expect(loadout(ws, 'trust', ws.project).status).toBe(0);
    const moved = loadout(ws, 'servers', 'transfer', 'myserver', '--from', `project:${ws.project}`, '--to', 'global', '--json');
    expect(moved.status, moved.stderr).toBe(0);
    expect(moved.json()).toMatchObject({ record: { id: 'MyServer-2', name: 'Mine', level: 'global' } });
    expect(fs.readdirSync(path.join(ws.places.capabilitiesDir, 'servers')).sort()).toEqual(['MyServer-2.json', 'myserver.json']);

    const back = loadout(ws, 'servers', 'transfer', 'MyServer-2', '--from', 'global', '--to', `project:${ws.other}`);
    expect(back.status, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/^moved server "MyServer-2" to the project level as "MyServer-2" \(Mine\)/);
    expect(fs.readFileSync(path.join(ws.other, '.agents/servers/MyServer-2.json'), 'utf8')).toBe(
      '{ "name": "Mine", "command": "node", "args": ["srv.js"] }\n',
    );
  });

  it.each([
    [['skills', 'transfer', 'pdf', '--from', 'project', '--to', 'global'], 'CAPABILITY_INVALID'],
    [['skills', 'transfer', 'pdf', '--from', 'somewhere', '--to', 'global'], 'CAPABILITY_INVALID'],
    [['skills', 'transfer', 'missing', '--from', 'global', '--to', 'project:.'], 'CAPABILITY_NOT_FOUND'],
  ])('refuses %j with %s, exit 1, one JSON document', (args, code) => {
    const ws = levelsWorkspace({ capabilities: { skills: { 'pdf.md': skillText('pdf') } } });
    const run = loadout(ws, ...args, '--json');
    expect(run.status).toBe(1);
    expect(run.json()).toEqual({ error: { code, message: expect.any(String) } });
    expect(run.stderr).toMatch(/^loadout: /);
    expect(fs.existsSync(path.join(ws.places.capabilitiesDir, 'skills/pdf.md'))).toBe(true);
  });

  it('exits 2 when --to is missing', () => {
    const ws = levelsWorkspace();
    expect(loadout(ws, 'skills', 'transfer', 'pdf', '--from', 'global').status).toBe(2);
  });
});
