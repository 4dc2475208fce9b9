import { describe, expect, it } from 'vitest';
import { type PluginFacts, placePlugins } from './pluginsInPlace.js';

const facts = (plugin: string, more: Partial<PluginFacts> = {}): PluginFacts => ({
  plugin,
  dir: `/plugins/market/plugins/${plugin}`,
  manifestName: plugin,
  readByOtherManifest: false,
  refusedBecause: null,
  held: [],
  partsNotRead: null,
  definedByEntry: false,
  ownInRuntime: null,
  offSkills: [],
  ...more,
});

describe('placePlugins: one decision per plugin, with its reason', () => {
  it('gives Claude Code a clean Claude Code plugin in place, listed under its manifest name', () => {
    expect(placePlugins('claude-code', [facts('kit', { manifestName: 'toolkit' })])).toEqual([
      { plugin: 'kit', dir: '/plugins/market/plugins/kit', inPlace: true, reason: 'in place', listedAs: 'toolkit' },
    ]);
  });

  it('copies what Claude Code would refuse, run unchecked or not see, saying why', () => {
    const reasons = placePlugins('claude-code', [
      facts('plain', { manifestName: null }),
      facts('other', { readByOtherManifest: true }),
      facts('refused', { refusedBecause: 'agents: must be a "./….md" file path or a list of them' }),
      facts('held', { held: ['hook on-save', 'server chat'] }),
      facts('lsp', { partsNotRead: 'LSP servers (.lsp.json)' }),
      facts('entry', { definedByEntry: true }),
      facts('tools', { ownInRuntime: 'tools@local-market' }),
      facts('quiet', { offSkills: ['access'] }),
    ]).map((placement) => [placement.plugin, placement.inPlace, placement.reason]);
    expect(reasons).toEqual([
      ['plain', false, 'copied: not a Claude Code plugin (no .claude-plugin/plugin.json)'],
      ['other', false, 'copied: Loadout reads it by another manifest than Claude Code would'],
      ['refused', false, 'copied: Claude Code refuses its manifest (agents: must be a "./….md" file path or a list of them)'],
      ['held', false, 'copied: held (hook on-save, server chat not approved; Claude Code would run it)'],
      ['lsp', false, 'copied: it carries parts Loadout does not read (LSP servers (.lsp.json))'],
      ['entry', false, 'copied: its marketplace entry defines it, which Claude Code would not see'],
      ['tools', false, 'not given: claude-code loads its own plugin tools@local-market'],
      ['quiet', false, 'copied: its skill access is not on in Loadout; Claude Code would load the whole folder'],
    ]);
  });

  it('copies every plugin for a runtime that cannot read one in place, or when registering is blocked', () => {
    expect(placePlugins('codex', [facts('kit')])[0]).toMatchObject({
      inPlace: false,
      reason: 'copied: codex cannot load a plugin folder in place',
    });
    expect(placePlugins('claude-code', [facts('kit')], 'a marketplace named "loadout" is not Loadout\'s')[0]).toMatchObject({
      inPlace: false,
      reason: 'copied: a marketplace named "loadout" is not Loadout\'s',
    });
  });
});
