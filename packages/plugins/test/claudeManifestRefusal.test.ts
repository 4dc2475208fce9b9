import path from 'node:path';
import { skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { CLAUDE_REFUSES_MANIFEST, claudeCodeManifestProblems } from '../src/claudeCodeManifestRules.js';
import { pluginPlaces, readPluginLayout } from '../src/readPluginLayout.js';

afterEach(removeTestdirs);

/** A Claude Code plugin with one skill and the manifest fields given. */
function claudePlugin(fields: Record<string, unknown>): string {
  return testdir({
    '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'kit', ...fields }) },
    skills: { alpha: { 'SKILL.md': skillMarkdown({ name: 'alpha', description: 'The alpha skill' }) } },
    agents: { 'helper.md': '---\nname: helper\ndescription: helps\n---\nYou help.\n' },
  });
}

describe('a manifest Claude Code refuses', () => {
  it('is read by Loadout all the same, with a warning naming the plugin, the file and the field', () => {
    const root = claudePlugin({ agents: './agents/' });
    const reading = readPluginLayout({ places: pluginPlaces('kit', root, testdir()), definition: null });
    expect(reading.rejected).toBeNull();
    const refused = reading.layout.diagnostics.filter((finding) => finding.code === CLAUDE_REFUSES_MANIFEST);
    expect(refused).toEqual([expect.objectContaining({ severity: 'warning', path: path.join(root, '.claude-plugin', 'plugin.json') })]);
    expect(refused[0]?.message).toMatch(
      /^plugin kit: Claude Code refuses its \.claude-plugin\/plugin\.json \(agents: must be a "\.\/….md" file path/,
    );
  });

  it('is told apart from one Claude Code loads, by the rules measured with `claude plugin validate`', () => {
    // Accepted by 2.1.197 and 2.1.332.
    for (const accepted of [
      { name: 'kit' },
      { name: 'kit', agents: ['./agents/helper.md'], commands: './commands/', skills: './skills/', hooks: './hooks.json' },
      { name: 'kit', commands: { hello: { source: './commands/hello.md' } }, unknownField: 1, $schema: 'https://x' },
    ]) {
      expect(claudeCodeManifestProblems(accepted), JSON.stringify(accepted)).toEqual([]);
    }
    // Refused by both ("Invalid input", "cannot contain spaces", "expected string").
    expect(claudeCodeManifestProblems({ version: '1.0.0' })).toEqual(['name: must be a string']);
    expect(claudeCodeManifestProblems({ name: 'Kit Tools' })).toEqual(['name: must not contain spaces']);
    expect(claudeCodeManifestProblems({ name: 'kit', agents: './agents/' })[0]).toMatch(/^agents:/);
    expect(claudeCodeManifestProblems({ name: 'kit', agents: ['agents/helper.md'] })[0]).toMatch(/^agents:/);
    expect(claudeCodeManifestProblems({ name: 'kit', commands: 42, skills: 42, hooks: 42, mcpServers: 42 })).toHaveLength(4);
    expect(claudeCodeManifestProblems({ name: 'kit', version: 3, author: 'me', keywords: 'a' })).toEqual([
      'version: must be a string',
      'author: must be an object',
      'keywords: must be a list',
    ]);
  });

  it('gives no warning for a plugin Claude Code loads', () => {
    const root = claudePlugin({ agents: ['./agents/helper.md'] });
    const reading = readPluginLayout({ places: pluginPlaces('kit', root, testdir()), definition: null });
    expect(reading.layout.diagnostics.map((finding) => finding.code)).not.toContain(CLAUDE_REFUSES_MANIFEST);
  });
});
