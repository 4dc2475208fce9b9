import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { readMarketplaceIndex } from './readMarketplaceIndex.js';

afterEach(removeTestdirs);

const SHA = 'a'.repeat(40);

function index(plugins: unknown[], extra: Record<string, unknown> = {}) {
  return readMarketplaceIndex(testdir({ '.claude-plugin': { 'marketplace.json': JSON.stringify({ name: 'm', plugins, ...extra }) } }));
}

describe('readMarketplaceIndex', () => {
  it.each([
    ['a ./ folder', './plugins/x', { kind: 'folder', path: 'plugins/x' }],
    ['the marketplace root', './', { kind: 'folder', path: '' }],
    ['a bare name (no pluginRoot)', 'x', { kind: 'folder', path: 'x' }],
    [
      'github',
      { source: 'github', repo: 'acme/kit', ref: 'v2' },
      { kind: 'git', url: 'https://github.com/acme/kit.git', path: '', ref: 'v2', sha: null },
    ],
    [
      'a url with a sha',
      { source: 'url', url: 'https://git.example.com/k.git', sha: SHA },
      { kind: 'git', url: 'https://git.example.com/k.git', path: '', ref: null, sha: SHA },
    ],
    [
      'a url with a path',
      { source: 'url', url: 'https://git.example.com/k.git', path: 'plugins/k' },
      { kind: 'git', url: 'https://git.example.com/k.git', path: 'plugins/k', ref: null, sha: null },
    ],
    [
      'git-subdir with owner/repo',
      { source: 'git-subdir', url: 'acme/mono', path: './tools/k/' },
      { kind: 'git', url: 'https://github.com/acme/mono.git', path: 'tools/k', ref: null, sha: null },
    ],
    ['a relative url (the marketplace itself)', { source: 'url', url: './' }, { kind: 'folder', path: '' }],
    ['Codex local', { source: 'local', path: './plugins/y' }, { kind: 'folder', path: 'plugins/y' }],
  ])('reads %s', (_what, source, expected) => {
    expect(index([{ name: 'p', source }]).entries[0]?.source).toEqual(expected);
  });

  it('resolves bare names under metadata.pluginRoot', () => {
    expect(index([{ name: 'p', source: 'formatter' }], { metadata: { pluginRoot: './plugins' } }).entries[0]?.source).toEqual({
      kind: 'folder',
      path: 'plugins/formatter',
    });
  });

  it.each([
    ['a path leaving the repository', '../elsewhere', /must start with \.\/ and stay inside/],
    ['a ./ path climbing out', './a/../../b', /must be a relative path inside the repository/],
    ['npm', { source: 'npm', package: 'x' }, /source kind "npm" is not one Loadout installs/],
    ['an archive', { source: 'archive', url: 'https://x/y.zip' }, /source kind "archive"/],
    ['a short sha', { source: 'url', url: 'https://x/y.git', sha: 'abc' }, /must be a full lower-case commit id/],
    ['a ref that is an option', { source: 'github', repo: 'a/b', ref: '--upload-pack=x' }, /starts with "-"/],
  ])('lists but cannot install %s', (_what, source, reason) => {
    const [entry] = index([{ name: 'p', source }]).entries;
    expect(entry?.source).toEqual({ kind: 'unsupported', reason: expect.stringMatching(reason) });
  });

  it('keeps what search needs and what the plugin reads: strict, skills, servers and parts not loaded', () => {
    const { entries, skipped } = index([
      {
        name: 'doc',
        source: './',
        strict: false,
        skills: ['./skills/a'],
        description: 'Docs',
        keywords: ['x'],
        tags: ['y'],
        category: 'z',
        commands: ['./c'],
        lspServers: {},
      },
      { source: './nameless' },
      'not an object',
    ]);
    expect(entries).toEqual([
      {
        name: 'doc',
        description: 'Docs',
        keywords: ['x', 'y', 'z'],
        source: { kind: 'folder', path: '' },
        definition: {
          format: 'claude-code',
          strict: false,
          skills: ['./skills/a'],
          parts: ['commands', 'lspServers'],
          atMarketplaceRoot: true,
        },
      },
    ]);
    expect(skipped).toEqual(['entry 2 has no name and is skipped', 'entry 3 has no name and is skipped']);
  });

  it('refuses an index that is not an object with a plugins list', () => {
    const root = testdir({ '.agents': { plugins: { 'marketplace.json': '{"name":"x"}' } } });
    expect(() => readMarketplaceIndex(root)).toThrow(expect.objectContaining({ code: 'MARKETPLACE_INDEX_INVALID' }));
  });
});
