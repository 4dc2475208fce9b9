import { describe, expect, it } from 'vitest';
import { McpConfigLayoutError, McpConfigUnreadableError } from './McpConfigDocument.js';
import { YamlMcpConfigDocument } from './YamlMcpConfigDocument.js';

const yaml = (text: string | null) => new YamlMcpConfigDocument(text, 'extensions', 'config.yaml');

const fsEntry = {
  enabled: true,
  type: 'stdio',
  name: 'fs',
  description: '',
  cmd: 'npx',
  args: ['-y', '@example/fs', '/tmp: here'],
  envs: { LOG_LEVEL: 'debug' },
  env_keys: [],
  timeout: 300,
};

/** Goose's config.yaml as an owner keeps it: comments, quoting, flow lists, an extension of their own. */
const CONFIG = [
  '# goose settings',
  'GOOSE_PROVIDER: anthropic   # trailing comment',
  "GOOSE_MODEL: 'claude-sonnet'",
  'extensions:',
  '  # the built-in one',
  '  developer:',
  '    bundled: true',
  '    enabled: true',
  '    name: developer',
  '    timeout: 300',
  '    type: builtin',
  '  mine:',
  '    type: stdio',
  '    name: mine',
  '    cmd: node',
  '    args: [ "/opt/mine.js",   --x ]   # odd spacing',
  '    enabled: false',
  '# after the extensions',
  'GOOSE_MODE: smart_approve',
  '',
].join('\n');

describe('YAML configuration (Goose)', () => {
  it('adds an entry after the last extension, reads it back, and removes it byte for byte', () => {
    const document = yaml(CONFIG);
    document.set('fs', fsEntry);
    const added = document.text();
    expect(added).toContain('    enabled: false\n  fs:\n    enabled: true\n    type: stdio\n');
    expect(added).toContain('# after the extensions\nGOOSE_MODE: smart_approve\n');
    expect(yaml(added).servers().get('fs')).toEqual(fsEntry);
    expect(yaml(added).servers().get('mine')).toEqual({
      type: 'stdio',
      name: 'mine',
      cmd: 'node',
      args: ['/opt/mine.js', '--x'],
      enabled: false,
    });
    document.remove('fs');
    expect(document.text()).toBe(CONFIG);
  });

  it('replaces an entry where it stands and leaves its neighbours alone', () => {
    const document = yaml(CONFIG);
    document.set('fs', fsEntry);
    document.set('remote', { enabled: true, type: 'streamable_http', name: 'remote', uri: 'https://mcp.example.com/mcp' });
    document.set('fs', { ...fsEntry, cmd: 'uvx', args: ['fs-server'] });
    const text = document.text();
    expect(text.indexOf('  fs:')).toBeLessThan(text.indexOf('  remote:'));
    expect(text).toContain('    cmd: uvx\n');
    document.remove('fs');
    document.remove('remote');
    expect(document.text()).toBe(CONFIG);
  });

  it('keeps CRLF line endings and four-space indentation', () => {
    const crlf = CONFIG.split('\n').join('\r\n');
    const document = yaml(crlf);
    document.set('fs', fsEntry);
    expect(document.text()).not.toMatch(/[^\r]\n/);
    document.remove('fs');
    expect(document.text()).toBe(crlf);
    const wide = 'extensions:\n    mine:\n        cmd: node\n';
    const indented = yaml(wide);
    indented.set('fs', fsEntry);
    expect(indented.text()).toContain('\n    fs:\n      enabled: true\n');
    expect(yaml(indented.text()).servers().get('fs')).toEqual(fsEntry);
  });

  it('makes the container in a missing, an empty or a container-less file, and takes it away again', () => {
    const missing = yaml(null);
    missing.set('fs', fsEntry);
    expect(missing.text().startsWith('extensions:\n  fs:\n')).toBe(true);
    missing.remove('fs');
    missing.removeEmptyContainer();
    expect(missing.isEmpty()).toBe(true);

    const plain = 'GOOSE_PROVIDER: openai';
    const document = yaml(plain);
    document.set('fs', fsEntry);
    expect(document.text().startsWith('GOOSE_PROVIDER: openai\nextensions:\n  fs:\n')).toBe(true);
    document.remove('fs');
    document.removeEmptyContainer();
    expect(document.text()).toBe('GOOSE_PROVIDER: openai\n');

    for (const empty of ['extensions: {}\nGOOSE_MODE: auto\n', 'extensions:\nGOOSE_MODE: auto\n']) {
      const shell = yaml(empty);
      shell.set('fs', fsEntry);
      expect(yaml(shell.text()).servers().get('fs')).toEqual(fsEntry);
      expect(shell.text()).toContain('GOOSE_MODE: auto\n');
      // Emptied again, the container is an empty map (as Goose writes one), never a null.
      shell.remove('fs');
      expect(shell.text()).toBe('extensions: {}\nGOOSE_MODE: auto\n');
    }
  });

  it('refuses a file that is not a YAML map, or not YAML at all, with a coded error', () => {
    for (const text of ['- a\n- b\n', 'just text\n', 'a: 1\n---\nb: 2\n', 'extensions: [\n', 'a: 1\na: 2\n']) {
      expect(() => yaml(text), text).toThrow(McpConfigUnreadableError);
    }
    try {
      yaml('- a\n');
    } catch (error) {
      expect((error as McpConfigUnreadableError).code).toBe('MCP_CONFIG_UNREADABLE');
    }
  });

  it('refuses an edit the layout does not allow, leaving the text as it was', () => {
    const flow = 'extensions: { mine: { cmd: node } }\n';
    const document = yaml(flow);
    expect(() => document.set('fs', fsEntry)).toThrow(McpConfigLayoutError);
    expect(document.text()).toBe(flow);
    expect(() => yaml('{ extensions: {} }\n')).toThrow(McpConfigLayoutError);
    const listed = 'extensions:\n  - cmd: node\n';
    expect(() => yaml(listed).set('fs', fsEntry)).toThrow(McpConfigLayoutError);
  });
});
