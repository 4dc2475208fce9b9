import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '@loadout/cli/testing';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { type McpConfigFile, openMcpConfig } from '@loadout/runtimes';
import { afterEach, describe, expect, it } from 'vitest';

afterEach(() => removeTestdirs());

const doc = (definition: Record<string, unknown>): string => `${JSON.stringify({ name: 'A server', ...definition }, null, 2)}\n`;

/** Zed's settings as their owner keeps them: comments, trailing commas, a context server of their own. */
const ZED_SETTINGS = `// my Zed settings
{
  "theme": "One Dark", // keep me
  "context_servers": {
    "mine": { "source": "custom", "command": "node", "args": ["/opt/mine.js",], },
  },
}
`;

/** Goose's config.yaml as its owner keeps it: comments, quoting, a built-in extension. */
const GOOSE_CONFIG = `# goose settings
GOOSE_PROVIDER: anthropic   # keep me
extensions:
  developer:
    bundled: true
    enabled: true
    name: developer
    timeout: 300
    type: builtin
GOOSE_MODE: 'smart_approve'
`;

/**
 * A scratch machine: a home folder (XDG_CONFIG_HOME inside it) and a Loadout workspace with a
 * stdio server `fs` and a Streamable HTTP server `remote`; `withRuntimes` gives it Zed's and
 * Goose's config folders holding the owner's own settings.
 */
function scratch(withRuntimes: boolean) {
  const base = testdir({});
  const home = path.join(base, 'home');
  const workspace = path.join(base, 'workspace');
  fs.mkdirSync(path.join(workspace, 'plugins'), { recursive: true });
  gitRepo(path.join(workspace, 'capabilities'), {
    servers: {
      'fs.json': doc({ command: 'node', args: ['/opt/fs-server.js'], env: { LOG_LEVEL: 'debug' } }),
      'remote.json': doc({ url: 'https://mcp.example.com/mcp' }),
    },
  });
  const zedFile = path.join(home, '.config', 'zed', 'settings.json');
  const gooseFile = path.join(home, '.config', 'goose', 'config.yaml');
  fs.mkdirSync(home, { recursive: true });
  if (withRuntimes) {
    fs.mkdirSync(path.dirname(zedFile), { recursive: true });
    fs.mkdirSync(path.dirname(gooseFile), { recursive: true });
    fs.writeFileSync(zedFile, ZED_SETTINGS);
    fs.writeFileSync(gooseFile, GOOSE_CONFIG);
  }
  const loadout = (...args: string[]) => runCli(workspace, args, { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') });
  return { home, workspace, zedFile, gooseFile, loadout };
}

/** The entries under `container` as Loadout's own reader parses the file (JSONC with trailing commas, or YAML). */
function entries(file: string, format: McpConfigFile['format'], container: string): Record<string, unknown> {
  const target: McpConfigFile = {
    file,
    scope: 'user',
    format,
    container,
    writes: false,
    note: '',
    sharedLock: false,
    createMode: 0o600,
    trailingCommas: true,
  };
  return Object.fromEntries(openMcpConfig(target, fs.readFileSync(file, 'utf8'), file).servers());
}
const zedServers = (file: string) => entries(file, 'json', 'context_servers');
const gooseExtensions = (file: string) => entries(file, 'yaml', 'extensions');

describe('Zed and Goose through the built CLI', () => {
  it('are listed, chosen, written in place, left alone by a second apply, and lose a server switched off', () => {
    const m = scratch(true);
    const listed = m.loadout('runtimes', '--json');
    expect(listed.status, listed.stderr).toBe(0);
    const detected = listed.json<{ runtimes: { runtime: string; detected: boolean }[] }>().runtimes;
    expect(detected.filter((runtime) => ['zed', 'goose'].includes(runtime.runtime))).toEqual([
      expect.objectContaining({ runtime: 'goose', detected: true }),
      expect.objectContaining({ runtime: 'zed', detected: true }),
    ]);

    const chose = m.loadout('runtimes', 'use', 'zed', 'goose', '--json');
    expect(chose.status, chose.stderr).toBe(0);
    expect(chose.json<{ chosen: string[] }>().chosen).toEqual(['zed', 'goose']);

    const applied = m.loadout('apply', '--json');
    expect(applied.status, applied.stderr).toBe(0);
    expect(
      applied
        .json<{ runtimes: { runtime: string }[] }>()
        .runtimes.map((part) => part.runtime)
        .sort(),
    ).toEqual(['goose', 'zed']);
    expect(zedServers(m.zedFile)).toEqual({
      mine: { source: 'custom', command: 'node', args: ['/opt/mine.js'] },
      fs: { source: 'custom', command: 'node', args: ['/opt/fs-server.js'], env: { LOG_LEVEL: 'debug' } },
      remote: { url: 'https://mcp.example.com/mcp' },
    });
    expect(gooseExtensions(m.gooseFile)).toMatchObject({
      developer: { type: 'builtin', enabled: true },
      fs: { type: 'stdio', name: 'fs', cmd: 'node', args: ['/opt/fs-server.js'], envs: { LOG_LEVEL: 'debug' }, enabled: true },
      remote: { type: 'streamable_http', name: 'remote', uri: 'https://mcp.example.com/mcp', enabled: true },
    });
    const zedText = fs.readFileSync(m.zedFile, 'utf8');
    const gooseText = fs.readFileSync(m.gooseFile, 'utf8');
    expect(zedText).toContain('"theme": "One Dark", // keep me');
    expect(gooseText.startsWith('# goose settings\nGOOSE_PROVIDER: anthropic   # keep me\n')).toBe(true);
    expect(gooseText).toContain("GOOSE_MODE: 'smart_approve'\n");

    const again = m.loadout('apply', '--json');
    expect(again.status, again.stderr).toBe(0);
    expect(again.json<{ changeCount: number }>().changeCount).toBe(0);
    expect(fs.readFileSync(m.zedFile, 'utf8')).toBe(zedText);
    expect(fs.readFileSync(m.gooseFile, 'utf8')).toBe(gooseText);

    for (const id of ['fs', 'remote']) expect(m.loadout('capability', 'set', `server/${id}`, '--disable').status).toBe(0);
    const off = m.loadout('apply', '--json');
    expect(off.status, off.stderr).toBe(0);
    expect(fs.readFileSync(m.zedFile, 'utf8')).toBe(ZED_SETTINGS);
    expect(fs.readFileSync(m.gooseFile, 'utf8')).toBe(GOOSE_CONFIG);
    expect(m.loadout('apply', '--check', '--json').json<{ upToDate: boolean }>().upToDate).toBe(true);
  });

  it('chosen on a machine that has neither, they get no folder created', () => {
    const m = scratch(false);
    expect(m.loadout('runtimes', 'use', 'zed', 'goose').status).toBe(0);
    const applied = m.loadout('apply', '--json');
    expect(applied.status, applied.stderr).toBe(0);
    expect(fs.existsSync(path.join(m.home, '.config', 'zed'))).toBe(false);
    expect(fs.existsSync(path.join(m.home, '.config', 'goose'))).toBe(false);
  });
});
