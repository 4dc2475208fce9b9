import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import type { RootLayout } from '@loadout/kernel';
import { skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { PathStamps } from '../src/PathStamps.js';
import { pluginPlaces, readPluginLayout } from '../src/readPluginLayout.js';
import { AGENT_PLUGINS_1_0, agentPluginsManifest } from '../src/testing/pluginFixtures.js';

afterEach(removeTestdirs);

const SHORT_RACY_MS = 30;
const pause = () => new Promise((done) => setTimeout(done, SHORT_RACY_MS * 2));
const skill = (name: string) => ({ 'SKILL.md': skillMarkdown({ name, description: `The ${name} skill` }) });

/**
 * Every path handed to a call of `node:fs` while `work` runs, through the module object or a named
 * import. The calls are wrapped only for this test's look and put back at once: the oracle that
 * says whether the layout reading asked the file system anything its recorded reader did not see.
 */
function pathsAskedOfNodeFs<T>(work: () => T): { value: T; asked: Set<string> } {
  const module = fs as unknown as Record<string, unknown>;
  const asked = new Set<string>();
  const note = (file: unknown): void => {
    if (typeof file === 'string') asked.add(path.resolve(file));
    else if (file instanceof URL || Buffer.isBuffer(file)) asked.add(path.resolve(file instanceof URL ? file.pathname : file.toString()));
  };
  const wrap = (call: (...args: unknown[]) => unknown) =>
    function watched(this: unknown, ...args: unknown[]): unknown {
      note(args[0]);
      return call.apply(this, args);
    };
  const originals = new Map<string, unknown>();
  for (const name of Object.keys(module)) {
    const call = module[name];
    if (typeof call !== 'function' || !/^[a-z]/.test(name)) continue;
    originals.set(name, call);
    module[name] = Object.assign(
      wrap(call as (...args: unknown[]) => unknown),
      name === 'realpathSync' ? { native: wrap(fs.realpathSync.native as (...args: unknown[]) => unknown) } : {},
    );
  }
  syncBuiltinESMExports();
  try {
    return { value: work(), asked };
  } finally {
    for (const [name, call] of originals) module[name] = call;
    syncBuiltinESMExports();
  }
}

/**
 * The absolute paths a layout names from what its reading found: its sources (but the default
 * `servers/` folder, which the kind scans itself), its server documents' files, its diagnostics'
 * paths and subjects.
 */
function pathsNamed(root: string, layout: RootLayout): string[] {
  const named: string[] = [];
  for (const sources of Object.values(layout.kinds)) {
    for (const source of sources) {
      if ('folder' in source && source.folder === 'servers' && sources === layout.kinds.servers) continue;
      if ('folder' in source) named.push(path.join(root, source.folder));
      else if ('entry' in source) named.push(path.join(root, source.entry));
      else named.push(source.document.path);
    }
  }
  for (const diagnostic of layout.diagnostics) {
    if (diagnostic.path !== undefined) named.push(path.resolve(diagnostic.path));
    for (const subject of diagnostic.subjects ?? []) named.push(path.join(root, subject));
  }
  return named;
}

/** Plugins that between them take every road of the layout reading. */
const plugins: [string, TreeDescription, ((root: string) => void)?][] = [
  [
    'a Claude Code plugin with listed skills, server files, parts not loaded and strays',
    {
      '.claude-plugin': {
        'plugin.json': JSON.stringify({
          name: 'cc',
          skills: ['./extra', './one'],
          mcpServers: ['./more.json', { inline: { command: './bin/run' } }],
          commands: './commands',
        }),
      },
      '.codex-plugin': { 'plugin.json': JSON.stringify({ name: 'cc' }) },
      skills: { base: skill('base'), '.curated': { hidden: skill('hidden') } },
      extra: { two: skill('two') },
      one: skill('one'),
      '.mcp.json': JSON.stringify({ mcpServers: { docs: { command: 'docs-server', cwd: '${CLAUDE_PLUGIN_ROOT}/bin' } } }),
      'more.json': JSON.stringify({ more: { url: 'https://example.com/mcp' } }),
      bin: { run: '#!/bin/sh\n' },
      hooks: { 'hooks.json': JSON.stringify({ hooks: { SessionStart: [] } }) },
      commands: { 'go.md': 'go' },
      nested: skill('nested'),
    },
    (root) => fs.symlinkSync(path.join(root, 'extra'), path.join(root, 'linked')),
  ],
  [
    'an Agent Plugins package with servers, a group folder and a skill that breaks the rules',
    {
      'plugin.json': agentPluginsManifest('ap'),
      'mcp.json': JSON.stringify({
        $schema: AGENT_PLUGINS_1_0.replace('plugin.schema', 'mcp.schema'),
        mcpServers: { run: { type: 'stdio', command: './bin/run', cwd: '${PLUGIN_DATA}/work' } },
      }),
      '.mcp.json': '{}',
      bin: { run: '#!/bin/sh\n' },
      skills: { good: skill('good'), bad: skill('Not-Good'), group: { deeper: skill('deeper') } },
    },
  ],
  [
    'a marketplace repository searched deep for skills in its plugins',
    {
      '.claude-plugin': { 'marketplace.json': JSON.stringify({ name: 'm', plugins: [{ name: 'a', source: './plugins/a' }] }) },
      plugins: { a: { skills: { s: skill('s') } } },
    },
  ],
  ['a plugin that is one skill at its root', { 'SKILL.md': skillMarkdown({ name: 'solo', description: 'Alone' }) }],
  ['a plugin whose manifest is not JSON', { '.claude-plugin': { 'plugin.json': '{ nope' } }],
];

describe('the layout reading looks at the file system only through the reader it is handed', () => {
  for (const [name, tree, more] of plugins) {
    it(`records every path it asked about, and every path its layout names, for ${name}`, async () => {
      const root = testdir(tree);
      more?.(root);
      const places = pluginPlaces('p', root, testdir());
      await pause();
      const { value: recorded, asked } = pathsAskedOfNodeFs(() =>
        PathStamps.record((files) => readPluginLayout({ places, definition: null, files }), SHORT_RACY_MS),
      );
      const { value, stamps } = recorded;
      expect(stamps).not.toBeNull();
      // The recorder hands `node:fs` only paths it noted, and the stamps then look at each once more:
      // when the reading asked `node:fs` about a path some other way, there is one path too many.
      expect(stamps?.size).toBe(asked.size);
      for (const named of pathsNamed(root, value.layout)) expect(asked).toContain(named);
      expect(value.layout).toEqual(readPluginLayout({ places, definition: null }).layout);
    });
  }

  it('records the folder of a plugin that is missing', () => {
    const root = path.join(testdir(), 'gone');
    const places = pluginPlaces('p', root, testdir());
    const { value, stamps } = PathStamps.record((files) => readPluginLayout({ places, definition: null, files }), SHORT_RACY_MS);
    expect(value.rejected).toContain('is missing');
    expect(stamps?.size).toBeGreaterThan(0);
    fs.mkdirSync(root);
    expect(stamps?.unchanged()).toBe(false);
  });
});
