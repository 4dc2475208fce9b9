import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeEnvironmentFrom } from '../RuntimeEnvironment.js';
import {
  ampMcpSupport,
  auggieMcpSupport,
  clineMcpSupport,
  copilotCliMcpSupport,
  copilotVsCodeMcpSupport,
  crushMcpSupport,
  cursorMcpSupport,
  geminiMcpSupport,
  kiloCodeMcpSupport,
  openCodeMcpSupport,
  qoderMcpSupport,
  qwenMcpSupport,
  windsurfMcpSupport,
} from './runtimeMcpSupports.js';
import type { ServerSpec } from './ServerSpec.js';

afterEach(() => removeTestdirs());

const stdio: ServerSpec = {
  transport: 'stdio',
  command: 'node',
  args: ['server.js', '--root', '${HOME}/work'],
  env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' },
  cwd: '/srv/tools',
};
const http: ServerSpec = { transport: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${API_TOKEN}' } };
const sse: ServerSpec = { transport: 'sse', url: 'https://mcp.example.com/sse', headers: {} };
const ws: ServerSpec = { transport: 'ws', url: 'wss://mcp.example.com/ws', headers: {} };

describe('server entries, shaped as each runtime writes them', () => {
  it('Gemini CLI and Qwen Code: httpUrl for Streamable HTTP, url for SSE, cwd kept, ${VAR} as is', () => {
    for (const support of [geminiMcpSupport, qwenMcpSupport]) {
      expect(support.entryFor(stdio)).toEqual({
        value: {
          command: 'node',
          args: ['server.js', '--root', '${HOME}/work'],
          env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' },
          cwd: '/srv/tools',
        },
        notes: [],
      });
      expect(support.entryFor(http)).toEqual({
        value: { httpUrl: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${API_TOKEN}' } },
        notes: [],
      });
      expect(support.entryFor(sse)).toEqual({ value: { url: 'https://mcp.example.com/sse' }, notes: [] });
      expect(support.entryFor(ws)).toHaveProperty('unsupported');
    }
  });

  it('OpenCode: one command list, `environment`, {env:NAME} references, no working folder (said so)', () => {
    const entry = openCodeMcpSupport.entryFor(stdio);
    expect(entry).toEqual({
      value: {
        type: 'local',
        command: ['node', 'server.js', '--root', '{env:HOME}/work'],
        environment: { GITHUB_TOKEN: '{env:GITHUB_TOKEN}' },
      },
      notes: [expect.stringContaining('OpenCode has no working-folder setting')],
    });
    expect(openCodeMcpSupport.entryFor(http)).toEqual({
      value: { type: 'remote', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer {env:API_TOKEN}' } },
      notes: [],
    });
  });

  it('Cursor and Windsurf: ${env:NAME} references; Windsurf names a remote address serverUrl', () => {
    expect(cursorMcpSupport.entryFor(http)).toEqual({
      value: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${env:API_TOKEN}' } },
      notes: [],
    });
    expect(windsurfMcpSupport.entryFor(sse)).toEqual({ value: { serverUrl: 'https://mcp.example.com/sse' }, notes: [] });
  });

  it('VS Code: typed entries under `servers`, ${env:NAME} references, the working folder kept', () => {
    expect(copilotVsCodeMcpSupport.entryFor(stdio)).toEqual({
      value: {
        type: 'stdio',
        command: 'node',
        args: ['server.js', '--root', '${env:HOME}/work'],
        env: { GITHUB_TOKEN: '${env:GITHUB_TOKEN}' },
        cwd: '/srv/tools',
      },
      notes: [],
    });
    const env = runtimeEnvironmentFrom({ HOME: '/home/me' });
    expect(copilotVsCodeMcpSupport.files('/home/me/app', env).map((file) => [file.file, file.container])).toEqual([
      ['/home/me/.config/Code/User/mcp.json', 'servers'],
      ['/home/me/app/.vscode/mcp.json', 'servers'],
    ]);
  });

  it('Copilot CLI carries tools ["*"] on every entry, as `copilot mcp add` writes it', () => {
    expect(copilotCliMcpSupport.entryFor({ ...stdio, cwd: undefined } as ServerSpec)).toEqual({
      value: {
        type: 'local',
        command: 'node',
        args: ['server.js', '--root', '${HOME}/work'],
        env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' },
        tools: ['*'],
      },
      notes: [],
    });
    expect(copilotCliMcpSupport.entryFor(sse)).toEqual({
      value: { type: 'sse', url: 'https://mcp.example.com/sse', tools: ['*'] },
      notes: [],
    });
  });

  it('Auggie: typed entries, no working folder, and a server whose entry needs a ${NAME} skipped with the reason', () => {
    const plain: ServerSpec = { transport: 'stdio', command: 'node', args: ['server.js'], env: { LEVEL: 'info' } };
    expect(auggieMcpSupport.entryFor(plain)).toEqual({
      value: { type: 'stdio', command: 'node', args: ['server.js'], env: { LEVEL: 'info' } },
      notes: [],
    });
    expect(auggieMcpSupport.entryFor(sse)).toEqual({ value: { type: 'sse', url: 'https://mcp.example.com/sse' }, notes: [] });
    expect(auggieMcpSupport.entryFor(stdio)).toEqual({
      unsupported: expect.stringContaining('Auggie expands no ${NAME} reference (in the arguments)'),
    });
    expect(auggieMcpSupport.entryFor(http)).toEqual({ unsupported: expect.stringContaining('(in header Authorization)') });
  });

  it('Cline: flat entries with the working folder, Streamable HTTP typed (it reads an untyped URL as SSE), no references', () => {
    const plain: ServerSpec = { transport: 'stdio', command: 'node', args: ['server.js'], env: { LEVEL: 'info' }, cwd: '/srv/tools' };
    expect(clineMcpSupport.entryFor(plain)).toEqual({
      value: { command: 'node', args: ['server.js'], env: { LEVEL: 'info' }, cwd: '/srv/tools' },
      notes: [],
    });
    expect(clineMcpSupport.entryFor({ ...http, headers: { 'X-Team': 'tools' } })).toEqual({
      value: { type: 'streamableHttp', url: 'https://mcp.example.com/mcp', headers: { 'X-Team': 'tools' } },
      notes: [],
    });
    expect(clineMcpSupport.entryFor(sse)).toEqual({ value: { type: 'sse', url: 'https://mcp.example.com/sse' }, notes: [] });
    expect(clineMcpSupport.entryFor(stdio)).toEqual({ unsupported: expect.stringContaining('Cline expands no ${NAME} reference') });
    expect(clineMcpSupport.entryFor(ws)).toEqual({ unsupported: 'Cline has no WebSocket transport' });
  });

  it('Cline: one settings file for every project, moved by CLINE_DIR, CLINE_DATA_DIR or CLINE_MCP_SETTINGS_PATH', () => {
    const file = (variables: Record<string, string>) =>
      clineMcpSupport
        .files('/home/me/app', runtimeEnvironmentFrom({ HOME: '/home/me', ...variables }))
        .map((target) => [target.file, target.scope]);
    expect(file({})).toEqual([['/home/me/.cline/data/settings/cline_mcp_settings.json', 'user']]);
    expect(file({ CLINE_DIR: '/opt/cline' })).toEqual([['/opt/cline/data/settings/cline_mcp_settings.json', 'user']]);
    expect(file({ CLINE_DIR: '/opt/cline', CLINE_DATA_DIR: '/var/cline' })).toEqual([
      ['/var/cline/settings/cline_mcp_settings.json', 'user'],
    ]);
    expect(file({ CLINE_MCP_SETTINGS_PATH: '/etc/cline/mcp.json' })).toEqual([['/etc/cline/mcp.json', 'user']]);
    // A relative value is not a place Loadout can know: the default stands.
    expect(file({ CLINE_DIR: 'relative' })).toEqual([['/home/me/.cline/data/settings/cline_mcp_settings.json', 'user']]);
  });

  it('Qoder CLI: entries as `qodercli mcp add` writes them, ${NAME} as is, WebSocket typed; its project file is not .mcp.json', () => {
    expect(qoderMcpSupport.entryFor({ ...stdio, cwd: undefined } as ServerSpec)).toEqual({
      value: { command: 'node', args: ['server.js', '--root', '${HOME}/work'], env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } },
      notes: [],
    });
    expect(qoderMcpSupport.entryFor(stdio)).toEqual({
      value: expect.objectContaining({ command: 'node' }),
      notes: [expect.stringContaining('Qoder CLI has no working-folder setting')],
    });
    expect(qoderMcpSupport.entryFor(http)).toEqual({
      value: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${API_TOKEN}' } },
      notes: [],
    });
    expect(qoderMcpSupport.entryFor(ws)).toEqual({ value: { type: 'ws', url: 'wss://mcp.example.com/ws' }, notes: [] });
    const env = runtimeEnvironmentFrom({ HOME: '/home/me' });
    expect(qoderMcpSupport.files('/home/me/app', env).map((file) => [file.file, file.scope])).toEqual([
      ['/home/me/.qoder/settings.json', 'user'],
      ['/home/me/app/.qoder/settings.json', 'project'],
    ]);
  });

  it('a ${NAME:-default} is skipped with the reason by every runtime that cannot expand it', () => {
    const withDefault: ServerSpec = { transport: 'stdio', command: 'node', args: [], env: { LEVEL: '${LEVEL:-info}' } };
    for (const support of [geminiMcpSupport, openCodeMcpSupport, copilotCliMcpSupport, ampMcpSupport, cursorMcpSupport, crushMcpSupport]) {
      const entry = support.entryFor(withDefault);
      expect(entry).toEqual({ unsupported: expect.stringContaining('${NAME:-default} (in env LEVEL)') });
    }
  });
});

describe("a server's tool lists", () => {
  const tools = { allow: ['read_file', 'list_*'], deny: ['write_file'] };
  const value = (support: typeof geminiMcpSupport, spec: ServerSpec) => {
    const entry = support.entryFor(spec);
    if ('unsupported' in entry) throw new Error(entry.unsupported);
    return entry.value;
  };

  it("are written under each runtime's own keys, and only where it has them", () => {
    for (const support of [geminiMcpSupport, qwenMcpSupport]) {
      expect(value(support, { ...stdio, tools })).toMatchObject({ includeTools: tools.allow, excludeTools: tools.deny });
      expect(value(support, { ...http, tools })).toMatchObject({ includeTools: tools.allow, excludeTools: tools.deny });
      expect(support.toolLists).toEqual({ allow: true, deny: true });
    }
    // Copilot CLI's `tools` is its allow list (`["*"]` when the server has none); it has no deny list.
    expect(value(copilotCliMcpSupport, { ...stdio, tools }).tools).toEqual(tools.allow);
    expect(value(copilotCliMcpSupport, stdio).tools).toEqual(['*']);
    expect(copilotCliMcpSupport.toolLists).toEqual({ allow: true, deny: false });
    expect(value(openCodeMcpSupport, { ...stdio, tools })).not.toHaveProperty('tools');
    expect(openCodeMcpSupport.toolLists).toBeUndefined();
  });
});

describe("a runtime's files", () => {
  it('are read but never written while its own folder is absent, and written once it exists', () => {
    const home = testdir({});
    const project = path.join(home, 'work', 'app');
    const env = runtimeEnvironmentFrom({ HOME: home });
    const absent = geminiMcpSupport.files(project, env);
    expect(absent.map((file) => [file.file, file.scope, file.writes, file.offList])).toEqual([
      [path.join(home, '.gemini', 'settings.json'), 'user', false, undefined],
      [path.join(project, '.gemini', 'settings.json'), 'project', false, undefined],
      // The project's list of servers left off (`mcp.excluded`), a target of its own in the same file.
      [path.join(project, '.gemini', 'settings.json'), 'project', false, ['mcp', 'excluded']],
    ]);
    expect(absent[0]?.note).not.toContain(home);
    fs.mkdirSync(path.join(home, '.gemini'));
    expect(geminiMcpSupport.files(project, env).map((file) => file.writes)).toEqual([true, true, true]);
  });

  it('follow the variables each runtime reads: XDG_CONFIG_HOME, COPILOT_HOME, GEMINI_CLI_HOME; an existing opencode.jsonc is the one edited', () => {
    const base = testdir({ xdg: { opencode: { 'opencode.jsonc': '{}\n' } } });
    const env = runtimeEnvironmentFrom({
      HOME: path.join(base, 'home'),
      XDG_CONFIG_HOME: path.join(base, 'xdg'),
      COPILOT_HOME: path.join(base, 'copilot'),
      GEMINI_CLI_HOME: path.join(base, 'gemini-home'),
    });
    expect(openCodeMcpSupport.files(null, env).map((file) => file.file)).toEqual([path.join(base, 'xdg', 'opencode', 'opencode.jsonc')]);
    expect(ampMcpSupport.files(null, env).map((file) => file.file)).toEqual([path.join(base, 'xdg', 'amp', 'settings.json')]);
    expect(copilotCliMcpSupport.files(null, env).map((file) => file.file)).toEqual([path.join(base, 'copilot', 'mcp-config.json')]);
    expect(geminiMcpSupport.files(null, env).map((file) => file.file)).toEqual([
      path.join(base, 'gemini-home', '.gemini', 'settings.json'),
    ]);
    expect(windsurfMcpSupport.files('/any/project', env).map((file) => file.scope)).toEqual(['user']);
  });

  it('Kilo Code: the config it would edit itself, kilo.jsonc by default, else the one the user already has; trailing commas accepted', () => {
    const base = testdir({ xdg: { kilo: {} }, app: {} });
    const env = runtimeEnvironmentFrom({ HOME: path.join(base, 'home'), XDG_CONFIG_HOME: path.join(base, 'xdg') });
    const project = path.join(base, 'app');
    const files = () => kiloCodeMcpSupport.files(project, env).map((file) => [file.file, file.scope, file.trailingCommas]);
    expect(files()).toEqual([
      [path.join(base, 'xdg', 'kilo', 'kilo.jsonc'), 'user', true],
      [path.join(project, '.kilo', 'kilo.jsonc'), 'project', true],
    ]);
    fs.writeFileSync(path.join(base, 'xdg', 'kilo', 'opencode.json'), '{}\n');
    fs.writeFileSync(path.join(project, 'kilo.json'), '{}\n');
    expect(files().map(([file]) => file)).toEqual([path.join(base, 'xdg', 'kilo', 'opencode.json'), path.join(project, 'kilo.json')]);
    fs.mkdirSync(path.join(project, '.kilocode'));
    fs.writeFileSync(path.join(project, '.kilocode', 'opencode.jsonc'), '{}\n');
    expect(files()[1]?.[0]).toBe(path.join(project, '.kilocode', 'opencode.jsonc'));
    expect(kiloCodeMcpSupport.entryFor(http)).toEqual(openCodeMcpSupport.entryFor(http));
  });

  it('warn when Gemini CLI or Copilot CLI would not read the project file, and not once the project is trusted', () => {
    const home = testdir({});
    const project = path.join(home, 'work', 'app');
    const env = runtimeEnvironmentFrom({ HOME: home });
    const file = path.join(project, '.gemini', 'settings.json');
    expect(geminiMcpSupport.projectFindings?.(file, ['proj'], project, env).map((finding) => finding.code)).toEqual([
      'GEMINI_FOLDER_NOT_TRUSTED',
    ]);
    expect(copilotCliMcpSupport.projectFindings?.(file, ['proj'], project, env).map((finding) => finding.code)).toEqual([
      'COPILOT_FOLDER_NOT_TRUSTED',
    ]);
    fs.mkdirSync(path.join(home, '.gemini'));
    fs.writeFileSync(path.join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [path.join(home, 'work')]: 'TRUST_FOLDER' }));
    fs.mkdirSync(path.join(home, '.copilot'));
    fs.writeFileSync(path.join(home, '.copilot', 'config.json'), JSON.stringify({ trusted_folders: [project] }));
    expect(geminiMcpSupport.projectFindings?.(file, ['proj'], project, env)).toEqual([]);
    expect(copilotCliMcpSupport.projectFindings?.(file, ['proj'], project, env)).toEqual([]);
  });
});
