import { describe, expect, it } from 'vitest';
import type { CapabilityRecord } from './CapabilityKind.js';
import { shadowRecords } from './shadowRecords.js';

/** A record of `plugin`'s root (null: the owner's, `project`: the project's) at a path named after both. */
function record(id: string, plugin: string | null | 'project'): CapabilityRecord {
  const level = plugin === 'project' ? 'project' : 'global';
  const owner = plugin === 'project' ? null : plugin;
  return { kind: 'note', id, name: id, description: '', level, plugin: owner, path: `/${plugin ?? 'owner'}/${id}.md`, gates: {} };
}

describe('shadowRecords', () => {
  it('lets the first root win, case-insensitively, and orders winners by id', () => {
    const project = record('Shared', 'project');
    const owner = record('shared', null);
    const own = record('own', null);
    const alpha = record('SHARED', 'alpha');
    const { winners, shadowedBy } = shadowRecords([project, owner, own, alpha]);
    expect(winners).toEqual([own, project]);
    expect([...shadowedBy]).toEqual([
      [owner, project],
      [alpha, project],
    ]);
  });

  it('reports every record it sets aside, naming both roots', () => {
    const { diagnostics } = shadowRecords([record('dup', null), record('dup', 'alpha'), record('dup', 'beta')]);
    expect(diagnostics.map((d) => [d.code, d.severity, d.path])).toEqual([
      ['SHADOWED', 'info', '/alpha/dup.md'],
      ['SHADOWED', 'info', '/beta/dup.md'],
    ]);
    expect(diagnostics.map((d) => d.message)).toEqual([
      `note "dup" from plugin alpha is shadowed by the one from the owner's capabilities`,
      `note "dup" from plugin beta is shadowed by the one from the owner's capabilities`,
    ]);
  });

  it("keeps every plugin's copy of one id when neither the owner nor the project holds it (discord:access, telegram:access)", () => {
    const discord = record('access', 'discord');
    const telegram = record('access', 'telegram');
    const imessage = record('access', 'imessage');
    const twice = { ...record('access', 'telegram'), path: '/telegram/again/access.md' };
    const { winners, shadowedBy, diagnostics } = shadowRecords([discord, telegram, twice, imessage], { pluginsSideBySide: true });
    expect(shadowRecords([discord, telegram]).shadowedBy.get(telegram)).toBe(discord);
    expect(winners).toEqual([discord, telegram, imessage]);
    expect([...shadowedBy]).toEqual([[twice, telegram]]);
    expect(diagnostics.map((d) => d.path)).toEqual(['/telegram/again/access.md']);
  });

  it('never lets a root the session does not read win over one it reads', () => {
    const disabled = record('pdf', 'alpha');
    const enabled = record('pdf', 'beta');
    const onlyDisabled = record('solo', 'alpha');
    const laterDisabled = record('solo', 'gamma');
    const isRead = (r: CapabilityRecord) => r.plugin !== 'alpha' && r.plugin !== 'gamma';
    const { winners, shadowedBy } = shadowRecords([disabled, onlyDisabled, enabled, laterDisabled], { isRead, pluginsSideBySide: true });
    expect(winners).toEqual([enabled, onlyDisabled, laterDisabled]);
    expect(shadowedBy.get(disabled)).toBe(enabled);
    // Two plugins the session does not read hold `solo` side by side, as two it reads would.
    expect(shadowedBy.has(laterDisabled)).toBe(false);
  });

  it('keeps nothing back when nothing collides', () => {
    const records = [record('b', null), record('a', null)];
    const result = shadowRecords(records);
    expect(result.winners.map((r) => r.id)).toEqual(['a', 'b']);
    expect(result.shadowedBy.size).toBe(0);
    expect(result.diagnostics).toEqual([]);
  });

  it('hands records already in key order back in a list of its own, and still sets aside an id met twice in a row', () => {
    const records = [record('a', null), record('b', 'alpha'), record('c', 'beta')];
    const result = shadowRecords(records);
    expect(result.winners).toEqual(records);
    expect(result.winners).not.toBe(records);
    expect(result.shadowedBy.size).toBe(0);
    const twice = [record('a', null), record('A', 'alpha'), record('b', 'alpha')];
    expect(shadowRecords(twice).winners).toEqual([twice[0], twice[2]]);
    expect(shadowRecords(twice).diagnostics.map((d) => d.path)).toEqual(['/alpha/A.md']);
  });
});
