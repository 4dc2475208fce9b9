import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { closeLevels, levelsWorkspace, openLevels } from '../src/testing/index.js';

afterEach(() => {
  closeLevels();
  removeTestdirs();
});

const global = { level: 'global' as const };
const agentText = (name: string) =>
  `---\r\nname: ${name}\r\ndescription: Reviews code\r\ntools: Read, Grep\r\nmodel: sonnet\r\n---\r\nYou review.\r\n`;
const commandText = '---\ndescription: Ship the release\nargument-hint: "[version]"\n---\nShip $1.\n';

describe('an owner’s subagents and commands move between levels (seed 000)', () => {
  it('moves an agent to a project and back: the file moves, no copy is left, its bytes and its state travel', async () => {
    const ws = levelsWorkspace({ capabilities: { agents: { 'reviewer.md': agentText('reviewer') } } });
    const project = { level: 'project' as const, projectPath: ws.project };
    const { levels, state } = openLevels(ws.places);
    await state.setSurfaced('agent', 'reviewer', null, false);

    const there = await levels.transfer({ kind: 'agent', id: 'reviewer', from: global, to: project });
    expect(there).toMatchObject({
      moved: true,
      renamed: false,
      surfaced: false,
      record: { kind: 'agent', id: 'reviewer', level: 'project' },
    });
    expect(fs.existsSync(path.join(ws.places.capabilitiesDir, 'agents', 'reviewer.md'))).toBe(false);
    expect(fs.readFileSync(path.join(ws.project, '.agents', 'agents', 'reviewer.md'), 'utf8')).toBe(agentText('reviewer'));
    expect(await state.surfacedAt('agent', 'reviewer', ws.project)).toBe(false);
    expect(await state.surfacedAt('agent', 'reviewer', null)).toBeUndefined();

    const back = await levels.transfer({ kind: 'agent', id: 'reviewer', from: project, to: global });
    expect(back).toMatchObject({ moved: true, record: { id: 'reviewer', level: 'global' }, surfaced: false });
    expect(fs.readFileSync(path.join(ws.places.capabilitiesDir, 'agents', 'reviewer.md'), 'utf8')).toBe(agentText('reviewer'));
    expect(fs.readdirSync(path.join(ws.project, '.agents', 'agents'))).toEqual([]);
  });

  it('an agent arriving where its name is taken is renamed in its name line only; the one there is untouched', async () => {
    const ws = levelsWorkspace({
      capabilities: { agents: { 'reviewer.md': agentText('reviewer') } },
      project: { agents: { 'mine.md': agentText('reviewer') } },
    });
    const { levels } = openLevels(ws.places);
    const result = await levels.transfer({
      kind: 'agent',
      id: 'reviewer',
      from: global,
      to: { level: 'project', projectPath: ws.project },
    });
    expect(result).toMatchObject({ renamed: true, record: { id: 'reviewer-2', name: 'reviewer (2)' } });
    const landed = fs.readFileSync(result.record.path, 'utf8');
    expect(landed).toBe(agentText('reviewer').replace('name: reviewer', 'name: reviewer (2)'));
    expect(fs.readFileSync(path.join(ws.project, '.agents', 'agents', 'mine.md'), 'utf8')).toBe(agentText('reviewer'));
  });

  it('a command keeps its file name as its id; one arriving on a taken name lands as <name>-2, its display name suffixed in a name line and every other byte kept', async () => {
    const ws = levelsWorkspace({
      capabilities: { commands: { 'ship.md': commandText } },
      project: { commands: { 'ship.md': 'Ship it my way.\n' } },
    });
    const { levels, state } = openLevels(ws.places);
    await state.setSurfaced('command', 'ship', null, true);
    const result = await levels.transfer({ kind: 'command', id: 'ship', from: global, to: { level: 'project', projectPath: ws.project } });
    expect(result).toMatchObject({ renamed: true, surfaced: true, record: { kind: 'command', id: 'ship-2', name: 'ship (2)' } });
    expect(path.basename(result.record.path)).toBe('ship-2.md');
    expect(fs.readFileSync(result.record.path, 'utf8')).toBe(commandText.replace('---\n', '---\nname: ship (2)\n'));
    expect(fs.readFileSync(path.join(ws.project, '.agents', 'commands', 'ship.md'), 'utf8')).toBe('Ship it my way.\n');
    expect(await state.surfacedAt('command', 'ship-2', ws.project)).toBe(true);
  });

  it('lists every copy of a command with the one that wins, and refuses to move a hook', async () => {
    const ws = levelsWorkspace({ capabilities: { commands: { 'ship.md': commandText } }, project: { commands: { 'ship.md': 'Mine.\n' } } });
    const { levels } = openLevels(ws.places);
    const listed = await levels.list('command', ws.project);
    expect(listed.map((record) => [record.id, record.level, record.on, record.shadowedBy === null])).toEqual([
      ['ship', 'project', true, true],
      ['ship', 'global', false, false],
    ]);
    await expect(
      levels.transfer({ kind: 'hook', id: 'x', from: global, to: { level: 'project', projectPath: ws.project } }),
    ).rejects.toMatchObject({
      code: 'CAPABILITY_INVALID',
    });
  });
});
