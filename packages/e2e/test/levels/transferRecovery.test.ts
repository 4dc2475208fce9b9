import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, writeTree } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { TransferStep } from '@loadout/levels';
import { closeLevels, levelsWorkspace, openLevels, skillText } from '@loadout/levels/testing';
import { runLoadout } from './runLoadout.js';

/**
 * A killed transfer, then the owner tidying up by hand before the next one: the recovery must
 * never delete the last copy of a document. Each case names the issue-11 item it covers.
 */

afterEach(() => {
  closeLevels();
  removeTestdirs();
});

const pdf = { 'SKILL.md': skillText('pdf', 'project pdf'), scripts: { 'extract.py': 'print(1)\n' } };

/** A project pdf moving to a global level that has a pdf already: it lands as pdf-2, copied and renamed. */
async function killedMove(step: TransferStep) {
  const ws = levelsWorkspace({ capabilities: { skills: { pdf: { 'SKILL.md': skillText('pdf', 'global pdf') } } } });
  writeTree(path.join(ws.project, '.agents'), { skills: { pdf, 'notes.md': skillText('notes') } });
  await openLevels(ws.places).state.setSurfaced('skill', 'pdf', ws.project, false);
  closeLevels();
  // The pdf skill holds a script: it is held until the project is trusted, and a move never lifts a hold.
  expect(runLoadout(ws, ['trust', ws.project]).status).toBe(0);
  const run = runLoadout(ws, ['skills', 'transfer', 'pdf', '--from', `project:${ws.project}`, '--to', 'global'], step);
  expect(run.signal, run.stderr).toBe('SIGKILL');
  // The killed process's lock is its own; the next transfer would wait it out.
  fs.rmSync(path.join(ws.places.dataDir, 'levels-transfer.lock'), { recursive: true, force: true });
  return { ws, source: path.join(ws.project, '.agents/skills/pdf'), landing: path.join(ws.places.capabilitiesDir, 'skills/pdf-2') };
}

describe('recovering a killed transfer after the owner removed a copy', () => {
  it('11.4 the next transfer keeps the source when the owner deleted the duplicate it landed', async () => {
    const { ws, source, landing } = await killedMove('state-moved');
    expect(fs.existsSync(source) && fs.existsSync(landing)).toBe(true);
    fs.rmSync(landing, { recursive: true });

    const next = runLoadout(ws, ['skills', 'transfer', 'notes', '--from', `project:${ws.project}`, '--to', 'global', '--json']);
    expect(next.status, next.stderr).toBe(0);
    const warnings = (JSON.parse(next.stdout) as { warnings: string[] }).warnings;
    expect(warnings[0]).toMatch(/pdf-2 that was removed since; .*skills\/pdf is the last copy and stays where it is/);
    expect(warnings.join('\n')).not.toMatch(/it is at .*pdf-2/);
    expect(fs.readFileSync(path.join(source, 'SKILL.md'), 'utf8')).toBe(pdf['SKILL.md']);
    expect(fs.readFileSync(path.join(source, 'scripts/extract.py'), 'utf8')).toBe('print(1)\n');
  });

  it('11.4 the source kept gets back the on/off state the move had carried', async () => {
    const { ws, landing } = await killedMove('gates-moved');
    fs.rmSync(landing, { recursive: true });
    const { levels, state } = openLevels(ws.places);
    expect(await state.surfacedAt('skill', 'pdf-2', null)).toBe(false);
    const resolved = await levels.recover();
    expect(resolved).toEqual([expect.stringMatching(/is the last copy and stays where it is/)]);
    expect(await state.surfacedAt('skill', 'pdf', ws.project)).toBe(false);
    expect(await state.surfacedAt('skill', 'pdf-2', null)).toBeUndefined();
  });

  it('11.4 a source already hidden for deletion comes back when its landing was deleted', async () => {
    const { ws, source, landing } = await killedMove('source-hidden');
    expect(fs.existsSync(source)).toBe(false);
    fs.rmSync(landing, { recursive: true });
    const resolved = await openLevels(ws.places).levels.recover();
    expect(resolved).toEqual([expect.stringMatching(/is the last copy and stays where it is/)]);
    expect(fs.readFileSync(path.join(source, 'SKILL.md'), 'utf8')).toBe(pdf['SKILL.md']);
    expect(fs.readdirSync(path.dirname(source)).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('11.4 the landing is kept when the owner deleted the source instead', async () => {
    const { ws, source, landing } = await killedMove('state-moved');
    fs.rmSync(source, { recursive: true });
    const resolved = await openLevels(ws.places).levels.recover();
    expect(resolved).toEqual([expect.stringMatching(/finished an interrupted move of skill "pdf": it is at .*pdf-2/)]);
    expect(fs.existsSync(path.join(landing, 'SKILL.md'))).toBe(true);
  });
});
