import { describe, expect, it } from 'vitest';
import { JsonMcpConfigDocument } from './JsonMcpConfigDocument.js';
import { McpConfigLayoutError, McpConfigUnreadableError } from './McpConfigDocument.js';
import { TomlMcpConfigDocument } from './TomlMcpConfigDocument.js';

const stdio = { command: 'npx', args: ['-y', '@example/fs', '/tmp'], env: { ROOT: '${HOME}' } };
const remote = { url: 'https://mcp.example.com/mcp', bearer_token_env_var: 'EXAMPLE_TOKEN' };

const toml = (text: string | null) => new TomlMcpConfigDocument(text, 'mcp_servers', 'config.toml');
const json = (text: string | null) => new JsonMcpConfigDocument(text, 'mcpServers', '.claude.json');

describe('TOML configuration (Codex)', () => {
  const userFile = [
    '# my codex settings',
    'model = "gpt-5"   # trailing comment',
    "approval_policy='never'",
    '',
    '[projects."/home/me/work/app"]',
    'trust_level = "trusted"',
    '',
    '# a server of my own',
    '[mcp_servers.mine]',
    "command = 'node'",
    'args = [ "a.js",   "--x" ]   # odd spacing',
    '',
    '[mcp_servers.mine.env]',
    'TOKEN = "abc"',
    '',
    '[tui]',
    'notifications = true',
    '',
  ].join('\n');

  it('adds an entry after the last server table and removes it byte for byte', () => {
    const document = toml(userFile);
    document.set('fs', stdio);
    const added = document.text();
    expect(added).toContain('TOKEN = "abc"\n\n[mcp_servers.fs]\ncommand = "npx"\n');
    expect(added).toContain('[mcp_servers.fs.env]\nROOT = "${HOME}"\n\n[tui]');
    expect(toml(added).servers().get('fs')).toEqual(stdio);
    expect(toml(added).servers().get('mine')).toEqual({ command: 'node', args: ['a.js', '--x'], env: { TOKEN: 'abc' } });
    document.remove('fs');
    expect(document.text()).toBe(userFile);
  });

  it('replaces an entry where it stands and leaves its neighbours alone', () => {
    const document = toml(userFile);
    document.set('fs', stdio);
    document.set('remote', remote);
    document.set('fs', { command: 'uvx', args: ['fs-server'] });
    const text = document.text();
    expect(text.indexOf('[mcp_servers.fs]')).toBeLessThan(text.indexOf('[mcp_servers.remote]'));
    expect(text).not.toContain('ROOT');
    document.remove('fs');
    document.remove('remote');
    expect(document.text()).toBe(userFile);
  });

  it('keeps CRLF line endings, a missing file and an empty one', () => {
    const crlf = userFile.split('\n').join('\r\n');
    const document = toml(crlf);
    document.set('remote', remote);
    expect(document.text()).not.toMatch(/[^\r]\n/);
    document.remove('remote');
    expect(document.text()).toBe(crlf);

    const fresh = toml(null);
    fresh.set('fs', stdio);
    expect(fresh.text().startsWith('[mcp_servers.fs]\n')).toBe(true);
    fresh.remove('fs');
    expect(fresh.isEmpty()).toBe(true);
  });

  it('adds a line break to a file that lacks a final one, and comments stay where they were', () => {
    const document = toml('model = "x" # no final newline');
    document.set('fs', stdio);
    expect(document.text().startsWith('model = "x" # no final newline\n\n[mcp_servers.fs]')).toBe(true);
    document.remove('fs');
    expect(document.text()).toBe('model = "x" # no final newline\n');
  });

  it('removes an entry written with dotted keys or inline in [mcp_servers], and nothing else', () => {
    const dotted = toml('mcp_servers.files.command = "old"\nmcp_servers.files.args = []\nmodel = "x"\nmcp_servers.keep.command = "k"\n');
    dotted.remove('files');
    expect(dotted.text()).toBe('model = "x"\nmcp_servers.keep.command = "k"\n');
    const inTable = toml(
      'model = "x"\n\n[mcp_servers]\nkeep = { command = "k" }\nfs = { command = "z" } # mine\nlast = { command = "l" }\n',
    );
    inTable.remove('fs');
    expect(inTable.text()).toBe('model = "x"\n\n[mcp_servers]\nkeep = { command = "k" }\nlast = { command = "l" }\n');
  });

  it('refuses an inline container and text that is not TOML', () => {
    const inline = toml('mcp_servers = { mine = { command = "n" } }\n');
    expect(() => inline.set('fs', stdio)).toThrow(McpConfigLayoutError);
    expect(() => toml('[a]\n[a]\n')).toThrow(McpConfigUnreadableError);
    expect(() => toml('x = ')).toThrow(McpConfigUnreadableError);
  });
});

describe('JSON configuration (Claude Code)', () => {
  const claudeJson = JSON.stringify(
    {
      numStartups: 3,
      userID: 'abc',
      mcpServers: { mine: { type: 'stdio', command: 'node', args: ['m.js'], env: {} } },
      projects: { '/home/me/app': { allowedTools: [] } },
    },
    null,
    2,
  );

  it('adds and removes an entry, leaving every other byte', () => {
    const document = json(claudeJson);
    document.set('fs', { type: 'stdio', ...stdio });
    const added = document.text();
    expect(added).toContain('"mine": {\n      "type": "stdio",');
    expect(added).toContain('    "fs": {\n      "type": "stdio",\n      "command": "npx",');
    expect(json(added).servers().get('fs')).toEqual({ type: 'stdio', ...stdio });
    document.remove('fs');
    expect(document.text()).toBe(claudeJson);
  });

  it("never lays out the user's own entries, even on one line, with CRLF or tabs", () => {
    const odd = '{\r\n\t// settings\r\n\t"a": 1,\r\n\t"mcpServers": {\r\n\t\t"mine": {"command": "x"}\r\n\t}\r\n}';
    const document = json(odd);
    document.set('fs', { type: 'http', url: 'https://x.example/mcp' });
    expect(document.text()).toContain('"mine": {"command": "x"},\r\n');
    expect(document.text()).toContain('\t\t"fs": {\r\n\t\t\t"type": "http",');
    document.set('fs', { type: 'http', url: 'https://y.example/mcp' });
    expect(json(document.text()).servers().get('fs')).toEqual({ type: 'http', url: 'https://y.example/mcp' });
    document.remove('fs');
    expect(document.text()).toBe(odd);
  });

  it('creates the container and the file when missing, and takes an empty container away again', () => {
    const withoutServers = '{\n  "numStartups": 1\n}\n';
    const document = json(withoutServers);
    expect(document.hasContainer()).toBe(false);
    document.set('fs', { type: 'stdio', ...stdio });
    document.remove('fs');
    document.removeEmptyContainer();
    expect(document.text()).toBe(withoutServers);

    const fresh = json(null);
    fresh.set('proj', { type: 'stdio', command: 'node', args: [] });
    expect(JSON.parse(fresh.text())).toEqual({ mcpServers: { proj: { type: 'stdio', command: 'node', args: [] } } });
    fresh.remove('proj');
    fresh.removeEmptyContainer();
    expect(fresh.isEmpty()).toBe(true);
  });

  it('removes an entry in the middle by its own lines', () => {
    const three = '{\n  "mcpServers": {\n    "a": {"command": "a"},\n    "fs": {"command": "f"},\n    "b": {"command": "b"}\n  }\n}';
    const document = json(three);
    document.remove('fs');
    expect(document.text()).toBe('{\n  "mcpServers": {\n    "a": {"command": "a"},\n    "b": {"command": "b"}\n  }\n}');
  });

  it('makes a batch of edits in order and checks them once, indented as the container stands', () => {
    const nested = '{\n    "a": 1,\n    "mcpServers": {}\n}\n';
    const document = json(nested);
    document.applyEdits([
      { name: 'one', value: { type: 'stdio', command: 'a', args: [] } },
      { name: 'two', value: { type: 'http', url: 'https://two.example/mcp' } },
      { name: 'one', value: undefined },
    ]);
    expect(document.text()).toBe(
      '{\n    "a": 1,\n    "mcpServers": {"two": {\n            "type": "http",\n            "url": "https://two.example/mcp"\n        }}\n}\n',
    );
    document.remove('two');
    expect(document.text()).toBe(nested);
  });

  it('refuses text that is not a JSON object', () => {
    expect(() => json('{ "a": ')).toThrow(McpConfigUnreadableError);
    expect(() => json('[1]')).toThrow(McpConfigUnreadableError);
    expect(() => json('{"mcpServers": []}').set('fs', stdio)).toThrow(McpConfigLayoutError);
  });
});

describe('JSONC with trailing commas (OpenCode)', () => {
  const jsonc = (text: string | null, trailingCommas: boolean) => new JsonMcpConfigDocument(text, 'mcp', 'opencode.jsonc', trailingCommas);
  const own = [
    '// mine',
    '{',
    '  "$schema": "https://opencode.ai/config.json",',
    '  "mcp": {',
    '    "mine": { "type": "local", "command": ["node", "mine.js"], "enabled": false, },',
    '  },',
    '  "share": "disabled",',
    '}',
    '',
  ].join('\n');

  it('is refused where the runtime refuses it, and changes nothing', () => {
    expect(() => jsonc(own, false)).toThrow(McpConfigUnreadableError);
    expect(() => jsonc(own, false)).toThrow(/PropertyNameExpected|ValueExpected/);
  });

  it('is read where the runtime reads it: entries added, replaced and removed, every foreign byte and comma kept', () => {
    const document = jsonc(own, true);
    expect(document.servers().get('mine')).toEqual({ type: 'local', command: ['node', 'mine.js'], enabled: false });
    document.set('fs', { type: 'local', command: ['npx', 'fs'] });
    document.set('gh', { type: 'remote', url: 'https://gh.example/mcp' });
    const added = document.text();
    expect(added.startsWith('// mine\n{\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": {\n    "mine": {')).toBe(true);
    expect(added).toContain('"enabled": false, },');
    expect(added.endsWith('  "share": "disabled",\n}\n')).toBe(true);
    const reread = jsonc(added, true);
    expect([...reread.servers().keys()]).toEqual(['mine', 'fs', 'gh']);
    document.set('fs', { type: 'local', command: ['uvx', 'fs'] });
    expect(jsonc(document.text(), true).servers().get('fs')).toEqual({ type: 'local', command: ['uvx', 'fs'] });
    document.remove('gh');
    document.remove('fs');
    expect(document.text()).toBe(own);
  });

  it('removes an entry the user wrote last with a comma after it, and only its own text', () => {
    const document = jsonc('{\n  "mcp": {\n    "a": { "command": ["a"] },\n    "fs": { "command": ["f"] },\n  },\n}\n', true);
    document.remove('fs');
    expect(jsonc(document.text(), true).servers()).toEqual(new Map([['a', { command: ['a'] }]]));
    expect(document.text()).toBe('{\n  "mcp": {\n    "a": { "command": ["a"] },\n  },\n}\n');
  });
});
