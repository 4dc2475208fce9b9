import fs from 'node:fs';
import path from 'node:path';
import { resolve } from '@loadout/kernel';
import { removeTestdirs } from '@loadout/files/testing';
import { parse as parseJsonc } from 'jsonc-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApplyResult, RuntimeApplier } from '../index.js';
import { runtimeEnvironmentFrom } from '../RuntimeEnvironment.js';
import { closeLoadouts, machine, type Machine, openLoadout, runtimePart, serverDocument } from '../testing/runtimeFixture.js';
import { zedMcpSupport } from './zedMcpSupport.js';

afterEach(() => {
  closeLoadouts();
  removeTestdirs();
});

/** Zed's settings.json as its owner keeps it: comments, trailing commas, a server of their own and an extension's. */
const ZED_SETTINGS = [
  '// Zed settings',
  '{',
  '  "theme": "One Dark", // my theme',
  '  "context_servers": {',
  '    /* an extension server */',
  '    "mcp-server-github": {',
  '      "source": "extension",',
  '      "settings": { "github_personal_access_token": "from-the-extension", },',
  '    },',
  '    "mine": {',
  '      "source": "custom",',
  '      "command": "node",',
  '      "args": ["/opt/mine.js",],',
  '    },',
  '  },',
  '  "vim_mode": true,',
  '}',
  '',
].join('\n');

const userFile = (m: Machine) => path.join(m.home, '.config', 'zed', 'settings.json');
const projectFile = (m: Machine) => path.join(m.project, '.zed', 'settings.json');

function servers(file: string): Record<string, unknown> {
  return (parseJsonc(fs.readFileSync(file, 'utf8')) as { context_servers?: Record<string, unknown> }).context_servers ?? {};
}

const zedPart = (result: ApplyResult) => runtimePart(result, 'zed');

function fixture(): Machine {
  return machine({
    capabilities: {
      servers: {
        'fs.json': serverDocument({ command: 'node', args: ['/opt/fs-server.js', '/tmp'], env: { LOG_LEVEL: 'debug' } }),
        'remote.json': serverDocument({ url: 'https://mcp.example.com/mcp', headers: { 'X-Client': 'loadout' } }),
        'legacy.json': serverDocument({ url: 'https://l.example.com/sse', type: 'sse' }),
        'secretive.json': serverDocument({ command: 'node', env: { TOKEN: '${GH_TOKEN}' } }),
      },
    },
    project: { servers: { 'proj.json': serverDocument({ command: 'node', args: ['tools/server.js'] }) } },
    home: { '.config': { zed: { 'settings.json': ZED_SETTINGS } } },
    installed: ['zed'],
  });
}

describe('Zed MCP support', () => {
  it("writes context servers into the user's JSONC settings and the project's, keeping comments and trailing commas, and takes them away byte for byte", async () => {
    const m = fixture();
    const applier = resolve(openLoadout(m), RuntimeApplier);
    const result = await applier.apply({ project: m.project, runtimes: ['zed'] });
    expect(result.ok).toBe(true);
    expect(zedPart(result).mcp?.status).toBe('ok');
    expect(servers(userFile(m))).toEqual({
      'mcp-server-github': { source: 'extension', settings: { github_personal_access_token: 'from-the-extension' } },
      mine: { source: 'custom', command: 'node', args: ['/opt/mine.js'] },
      fs: { source: 'custom', command: 'node', args: ['/opt/fs-server.js', '/tmp'], env: { LOG_LEVEL: 'debug' } },
      remote: { url: 'https://mcp.example.com/mcp', headers: { 'X-Client': 'loadout' } },
    });
    expect(servers(projectFile(m))).toEqual({ proj: { source: 'custom', command: 'node', args: ['tools/server.js'] } });
    const text = fs.readFileSync(userFile(m), 'utf8');
    expect(text).toContain('"theme": "One Dark", // my theme');
    expect(text).toContain('"args": ["/opt/mine.js",],');
    const skipped = zedPart(result)
      .changes.filter((change) => change.action === 'skip')
      .map((change) => `${change.name}: ${change.reason}`);
    expect(skipped).toEqual([
      expect.stringMatching(/^legacy: .*Streamable HTTP only/),
      expect.stringMatching(/^secretive: Zed does not expand/),
    ]);
    expect(zedPart(result).findings.map((finding) => finding.code)).toContain('ZED_PROJECT_SERVERS_NEED_TRUST');

    expect((await applier.apply({ project: m.project, runtimes: ['zed'], mode: 'check' })).upToDate).toBe(true);

    for (const id of ['fs', 'remote']) fs.rmSync(path.join(m.places.capabilitiesDir, 'servers', `${id}.json`));
    const off = await applier.apply({ project: m.project, runtimes: ['zed'] });
    expect(off.retired.map((entry) => entry.name).sort()).toEqual(['fs', 'remote']);
    expect(fs.readFileSync(userFile(m), 'utf8')).toBe(ZED_SETTINGS);
  });

  it('refuses a damaged settings.json with a coded finding and changes nothing', async () => {
    const m = fixture();
    const damaged = '{ "context_servers": { "mine": ';
    fs.writeFileSync(userFile(m), damaged);
    const applier = resolve(openLoadout(m), RuntimeApplier);
    const result = await applier.apply({ runtimes: ['zed'] });
    expect(zedPart(result).findings.map((finding) => finding.code)).toContain('MCP_CONFIG_UNREADABLE');
    expect(fs.readFileSync(userFile(m), 'utf8')).toBe(damaged);
  });

  it("never creates Zed's folder on a machine without Zed", async () => {
    const m = machine({ capabilities: { servers: { 'fs.json': serverDocument({ command: 'node' }) } }, installed: [] });
    await resolve(openLoadout(m), RuntimeApplier).apply({ project: m.project, runtimes: ['zed'] });
    expect(fs.existsSync(path.join(m.home, '.config', 'zed'))).toBe(false);
    expect(fs.existsSync(path.join(m.project, '.zed'))).toBe(false);
  });

  it('follows XDG_CONFIG_HOME as Zed does', () => {
    expect(
      zedMcpSupport
        .files('/work/app', runtimeEnvironmentFrom({ HOME: '/home/me', XDG_CONFIG_HOME: '/srv/xdg' }))
        .map((file) => [file.file, file.scope]),
    ).toEqual([
      ['/srv/xdg/zed/settings.json', 'user'],
      ['/work/app/.zed/settings.json', 'project'],
    ]);
  });
});
