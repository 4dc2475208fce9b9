import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePluginSource } from './parsePluginSource.js';

afterEach(removeTestdirs);

describe('parsePluginSource', () => {
  it.each([
    ['https://github.com/acme/pdf-tools.git', 'https', 'pdf-tools'],
    ['https://github.com/acme/pdf-tools', 'https', 'pdf-tools'],
    ['ssh://git@github.com/acme/pdf-tools.git', 'ssh', 'pdf-tools'],
    ['git@github.com:acme/pdf-tools.git', 'ssh', 'pdf-tools'],
    ['github.com:acme/pdf-tools', 'ssh', 'pdf-tools'],
    ['git://example.org/pdf-tools.git', 'git', 'pdf-tools'],
    ['file:///srv/repos/pdf-tools.git', 'file', 'pdf-tools'],
    ['file:///srv/repos/pdf-tools/.git', 'file', 'pdf-tools'],
  ])('accepts %s as %s with base name %s', (input, transport, baseName) => {
    const source = parsePluginSource(input, '/');
    expect(source).toMatchObject({ url: input, transport, baseName });
  });

  it('turns a local folder into a file URL', () => {
    const dir = testdir({ 'my-plugin': { 'README.md': 'x' } });
    const source = parsePluginSource('my-plugin', dir);
    expect(source.transport).toBe('file');
    expect(source.url).toBe(`file://${path.join(dir, 'my-plugin')}`);
    expect(source.baseName).toBe('my-plugin');
  });

  it('refuses a local path that is not a folder', () => {
    const dir = testdir({ 'file.txt': 'x' });
    expect(() => parsePluginSource('file.txt', dir)).toThrow(expect.objectContaining({ code: 'PLUGIN_SOURCE_NOT_FOUND' }));
    expect(() => parsePluginSource('missing', dir)).toThrow(expect.objectContaining({ code: 'PLUGIN_SOURCE_NOT_FOUND' }));
  });

  it.each([
    ['', 'is empty'],
    ['ext::sh -c touch% /tmp/x', 'whitespace'],
    ['ext::sh', 'remote helper'],
    ['fd::17', 'remote helper'],
    ['--upload-pack=touch /tmp/x', 'whitespace'],
    ['--upload-pack=touch', 'option'],
    ['-oProxyCommand=touch', 'option'],
    ['-c', 'option'],
    ['https://example.org/x\n.git', 'control'],
    ['https://example.org/x\u0000', 'control'],
    ['https://example.org/a b', 'whitespace'],
    ['http://example.org/plugin.git', 'only https, ssh, git and file'],
    ['ftp://example.org/plugin.git', 'only https, ssh, git and file'],
    ['ssh://-oProxyCommand=touch/x', 'starting with "-"'],
    ['-oProxyCommand=x:repo', 'option'],
    ['host:-u/x', 'starting with "-"'],
    ['file://remote.example/srv/x', 'this machine'],
    ['https://example.org/--upload-pack=x', 'names a git option'],
  ])('refuses %j (%s) before git starts', (input, reason) => {
    let caught: unknown;
    try {
      parsePluginSource(input, '/');
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ category: 'invalid' });
    expect((caught as Error).message).toContain(reason);
  });

  it('never shows a credential, in the display URL or in a refusal', () => {
    const source = parsePluginSource('https://user:s3cret-token@example.org/acme/tool.git', '/');
    expect(source.url).toContain('s3cret-token');
    expect(source.displayUrl).toBe('https://example.org/acme/tool.git');
    expect(() => parsePluginSource('ftp://user:s3cret-token@example.org/tool.git', '/')).toThrow(/^(?!.*s3cret-token)/);
    const ssh = parsePluginSource('ssh://git:s3cret-token@example.org/tool.git', '/');
    expect(ssh.displayUrl).not.toContain('s3cret-token');
  });

  it('does not touch the file system for a URL', () => {
    const dir = testdir();
    parsePluginSource('https://example.org/x.git', dir);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
