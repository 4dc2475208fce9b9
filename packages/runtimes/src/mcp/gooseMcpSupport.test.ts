import fs from 'node:fs';
import path from 'node:path';
import { resolve } from '@loadout/kernel';
import { removeTestdirs } from '@loadout/files/testing';
import { PluginRegistry } from '@loadout/plugins';
import { parse as parseYaml } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApplyResult, RuntimeApplier } from '../index.js';
import { runtimeEnvironmentFrom } from '../RuntimeEnvironment.js';
import {
  closeLoadouts,
  machine,
  type Machine,
  openLoadout,
  runtimePart,
  serverDocument,
  snapshotWithoutDatabase,
} from '../testing/runtimeFixture.js';
import { gooseEntry, gooseMcpSupport } from './gooseMcpSupport.js';

afterEach(() => {
  closeLoadouts();
  removeTestdirs();
});

/** Goose's config.yaml as its owner keeps it: comments, quoting, a flow list, a built-in and an extension of their own. */
const GOOSE_CONFIG = [
  '# goose settings',
  'GOOSE_PROVIDER: anthropic   # trailing comment',
  "GOOSE_MODEL: 'claude-sonnet'",
  'extensions:',
  '  developer:',
  '    bundled: true',
  '    enabled: true',
  '    name: developer',
  '    timeout: 300',
  '    type: builtin',
  '  # my own server',
  '  mine:',
  '    type: stdio',
  '    name: mine',
  '    cmd: node',
  '    args: [ "/opt/mine.js",   --x ]   # odd spacing',
  '    enabled: true',
  '    timeout: 60',
  'GOOSE_MODE: smart_approve',
  '',
].join('\n');

const configFile = (m: Machine) => path.join(m.home, '.config', 'goose', 'config.yaml');

function extensions(m: Machine): Record<string, unknown> {
  return (parseYaml(fs.readFileSync(configFile(m), 'utf8')) as { extensions?: Record<string, unknown> }).extensions ?? {};
}

const goosePart = (result: ApplyResult) => runtimePart(result, 'goose');

/** The owner's `fs` (stdio, a variable passed through by name) and `remote` (Streamable HTTP); Goose set up with its own config. */
function fixture(): Machine {
  return machine({
    capabilities: {
      servers: {
        'fs.json': serverDocument({
          command: 'node',
          args: ['/opt/fs-server.js', '/tmp'],
          env: { LOG_LEVEL: 'debug', GH_TOKEN: '${GH_TOKEN}' },
        }),
        'remote.json': serverDocument({ url: 'https://mcp.example.com/mcp', headers: { 'X-Client': 'loadout' } }),
        'legacy.json': serverDocument({ url: 'https://l.example.com/sse', type: 'sse' }),
      },
    },
    home: { '.config': { goose: { 'config.yaml': GOOSE_CONFIG } } },
    installed: ['goose'],
  });
}

describe('Goose MCP support', () => {
  it("writes the owner's servers as Goose extensions beside the user's own, and taking them away gives back the file byte for byte", async () => {
    const m = fixture();
    const applier = resolve(openLoadout(m), RuntimeApplier);
    const result = await applier.apply({ runtimes: ['goose'] });
    expect(result.ok).toBe(true);
    expect(goosePart(result).mcp?.status).toBe('ok');
    expect(extensions(m)).toEqual({
      developer: { bundled: true, enabled: true, name: 'developer', timeout: 300, type: 'builtin' },
      mine: { type: 'stdio', name: 'mine', cmd: 'node', args: ['/opt/mine.js', '--x'], enabled: true, timeout: 60 },
      fs: {
        enabled: true,
        type: 'stdio',
        name: 'fs',
        description: '',
        cmd: 'node',
        args: ['/opt/fs-server.js', '/tmp'],
        envs: { LOG_LEVEL: 'debug' },
        env_keys: ['GH_TOKEN'],
        timeout: 300,
      },
      remote: {
        enabled: true,
        type: 'streamable_http',
        name: 'remote',
        description: '',
        uri: 'https://mcp.example.com/mcp',
        headers: { 'X-Client': 'loadout' },
        envs: {},
        env_keys: [],
        timeout: 300,
      },
    });
    const text = fs.readFileSync(configFile(m), 'utf8');
    expect(text.startsWith(GOOSE_CONFIG.slice(0, GOOSE_CONFIG.indexOf('GOOSE_MODE')))).toBe(true);
    expect(goosePart(result).changes.find((change) => change.name === 'legacy')?.reason).toMatch(/Goose no longer speaks HTTP\+SSE/);

    // A second apply has nothing to do.
    expect((await applier.apply({ runtimes: ['goose'], mode: 'check' })).upToDate).toBe(true);
    const again = await applier.apply({ runtimes: ['goose'] });
    expect(again.changeCount).toBe(0);
    expect(fs.readFileSync(configFile(m), 'utf8')).toBe(text);

    // Switched off: the entries go, each kept in the trash, and the file is the owner's again.
    fs.rmSync(path.join(m.places.capabilitiesDir, 'servers', 'fs.json'));
    fs.rmSync(path.join(m.places.capabilitiesDir, 'servers', 'remote.json'));
    const off = await applier.apply({ runtimes: ['goose'] });
    expect(off.retired.map((entry) => entry.name).sort()).toEqual(['fs', 'remote']);
    expect(fs.readFileSync(configFile(m), 'utf8')).toBe(GOOSE_CONFIG);
  });

  it('leaves an entry the owner edited alone, and writes nothing on --dry-run or --check', async () => {
    const m = fixture();
    const container = openLoadout(m);
    const applier = resolve(container, RuntimeApplier);
    resolve(container, PluginRegistry).list();
    const untouched = snapshotWithoutDatabase(m);
    const dry = await applier.apply({ runtimes: ['goose'], mode: 'dry-run' });
    const check = await applier.apply({ runtimes: ['goose'], mode: 'check' });
    expect(snapshotWithoutDatabase(m)).toEqual(untouched);
    expect(dry.changeCount).toBe(2);
    expect(check.upToDate).toBe(false);

    await applier.apply({ runtimes: ['goose'] });
    const edited = fs.readFileSync(configFile(m), 'utf8').replace('LOG_LEVEL: debug', 'LOG_LEVEL: trace');
    fs.writeFileSync(configFile(m), edited);
    fs.writeFileSync(
      path.join(m.places.capabilitiesDir, 'servers', 'fs.json'),
      serverDocument({ command: 'node', args: ['/opt/fs-2.js'] }),
    );
    const changed = await applier.apply({ runtimes: ['goose'] });
    expect(goosePart(changed).mcp?.status).toBe('conflict');
    expect(fs.readFileSync(configFile(m), 'utf8')).toBe(edited);
  });

  it('refuses a config.yaml that is not a map, or not YAML, with a coded finding and changes nothing', async () => {
    for (const damaged of ['- developer\n- mine\n', 'extensions: [\n', 'GOOSE_MODE: auto\nGOOSE_MODE: chat\n']) {
      const m = fixture();
      fs.writeFileSync(configFile(m), damaged);
      const applier = resolve(openLoadout(m), RuntimeApplier);
      const result = await applier.apply({ runtimes: ['goose'] });
      expect(goosePart(result).findings.map((finding) => finding.code)).toContain('MCP_CONFIG_UNREADABLE');
      expect(goosePart(result).mcp?.status).not.toBe('ok');
      expect(fs.readFileSync(configFile(m), 'utf8')).toBe(damaged);
    }
  });

  it("never creates Goose's folder on a machine without Goose", async () => {
    const m = machine({
      capabilities: { servers: { 'fs.json': serverDocument({ command: 'node', args: ['/opt/fs-server.js'] }) } },
      installed: [],
    });
    const applier = resolve(openLoadout(m), RuntimeApplier);
    await applier.apply({ runtimes: ['goose'] });
    expect(fs.existsSync(path.join(m.home, '.config', 'goose'))).toBe(false);
  });

  it('follows GOOSE_PATH_ROOT and XDG_CONFIG_HOME as Goose does, and has no project file', () => {
    const base = '/srv/base';
    expect(gooseMcpSupport.files('/any/project', runtimeEnvironmentFrom({ HOME: base })).map((file) => [file.file, file.scope])).toEqual([
      [path.join(base, '.config', 'goose', 'config.yaml'), 'user'],
    ]);
    expect(gooseMcpSupport.files(null, runtimeEnvironmentFrom({ HOME: base, XDG_CONFIG_HOME: '/srv/xdg' }))[0]?.file).toBe(
      '/srv/xdg/goose/config.yaml',
    );
    expect(gooseMcpSupport.files(null, runtimeEnvironmentFrom({ HOME: base, GOOSE_PATH_ROOT: '/srv/goose' }))[0]?.file).toBe(
      '/srv/goose/config/config.yaml',
    );
  });

  it('cannot hold a reference Goose would pass on as text, WebSocket, or an entry without its name', () => {
    const stdio = { transport: 'stdio' as const, command: 'node', args: ['s.js'], env: { TOKEN: '${GH_TOKEN}' } };
    expect(gooseEntry(stdio, 'x')).toEqual({ unsupported: expect.stringMatching(/^Goose does not expand/) });
    expect(gooseEntry({ ...stdio, args: ['${HOME}/s.js'], env: {} }, 'x')).toHaveProperty('unsupported');
    expect(gooseEntry({ transport: 'http', url: 'https://h/mcp', headers: { A: 'Bearer ${T}' } }, 'x')).toHaveProperty('unsupported');
    expect(gooseEntry({ transport: 'ws', url: 'wss://h/mcp', headers: {} }, 'x')).toHaveProperty('unsupported');
    expect(gooseEntry({ ...stdio, env: {} })).toHaveProperty('unsupported');
    expect(gooseEntry({ ...stdio, env: {}, cwd: '/srv' }, 'x')).toMatchObject({ notes: [expect.stringMatching(/no working-folder/)] });
  });
});
