import path from 'node:path';
import { contribute, createKernel, PluginSource, resolvePlaces, SessionLoader } from '@loadout/kernel';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerRecord } from './ServerDefinition.js';
import { readRedactedServerDocument, REDACTED } from './serverDocument.js';
import { serversModule } from './serversModule.js';

afterEach(removeTestdirs);

describe('servers', () => {
  it('reads command and remote servers by file stem, never listing secrets', async () => {
    const home = testdir({
      capabilities: {
        servers: {
          'MyServer.json': JSON.stringify({ name: 'Mine', command: 'node', args: ['srv.js'], env: { API_KEY: 'sk-secret' } }),
          'remote.json': JSON.stringify({ name: 'Remote', url: 'https://user:tok3n@mcp.example.com/sse' }),
          'bad name!.json': JSON.stringify({ name: 'x', command: 'y' }),
          'broken.json': '{ not json',
          'wrong.json': JSON.stringify({ name: 'w', url: 'ftp://x' }),
        },
      },
    });
    const container = createKernel({ places: resolvePlaces({}, home) }, [
      serversModule,
      { name: 'test', now: (c) => contribute(c, PluginSource, { listInstalledPlugins: () => [] }) },
    ]);
    const session = await container.resolve(SessionLoader).open();
    const json = JSON.stringify(session.toJSON());
    expect(session.recordsOf('server').map((s) => s.id)).toEqual(['MyServer', 'remote']);
    expect(json).not.toContain('sk-secret');
    expect(json).not.toContain('tok3n');
    expect(session.find('server', 'myserver')?.name).toBe('Mine');
    expect(session.diagnostics.map((d) => d.code).sort()).toEqual(['DOCUMENT_INVALID', 'JSON_MALFORMED', 'SERVER_ID_INVALID']);
  });

  it('shows a server document with every env and header value and every URL credential redacted', async () => {
    const home = testdir({
      capabilities: {
        servers: {
          'local.json': JSON.stringify({
            name: 'Local',
            command: 'node',
            args: ['srv.js', 'https://me:pw@x.example/'],
            env: { API_KEY: 'sk-secret' },
          }),
          'remote.json': JSON.stringify({
            name: 'Remote',
            url: 'https://user:tok3n@mcp.example.com/mcp',
            headers: { Authorization: 'Bearer abc' },
          }),
        },
      },
    });
    const container = createKernel({ places: resolvePlaces({}, home) }, [
      serversModule,
      { name: 'test', now: (c) => contribute(c, PluginSource, { listInstalledPlugins: () => [] }) },
    ]);
    const session = await container.resolve(SessionLoader).open();
    const root = path.join(home, 'capabilities');
    const local = readRedactedServerDocument(session.find<ServerRecord>('server', 'local') as ServerRecord, root);
    const remote = readRedactedServerDocument(session.find<ServerRecord>('server', 'remote') as ServerRecord, root);
    expect(local).toEqual({
      id: 'local',
      name: 'Local',
      description: '',
      transport: 'stdio',
      command: 'node',
      args: ['srv.js', 'https://x.example/'],
      env: { API_KEY: REDACTED },
    });
    expect(remote).toEqual({
      id: 'remote',
      name: 'Remote',
      description: '',
      transport: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: REDACTED },
    });
    expect(JSON.stringify([local, remote])).not.toMatch(/sk-secret|tok3n|Bearer abc|:pw@/);
  });

  it("reads a server a plugin manifest declares inline, from its root's layout, redacted the same way", async () => {
    const home = testdir({ capabilities: {}, plugins: { kit: { '.mcp.json': '{"files":{"command":"npx"}}' } } });
    const dir = path.join(home, 'plugins', 'kit');
    const manifest = path.join(dir, '.mcp.json');
    const content = { name: 'files', command: '/opt/kit/bin/files', args: ['--root', dir], env: { TOKEN: 'tok-secret', PLUGIN_ROOT: dir } };
    const container = createKernel({ places: resolvePlaces({}, home) }, [
      serversModule,
      {
        name: 'test',
        now: (c) =>
          contribute(c, PluginSource, {
            listInstalledPlugins: () => [
              {
                name: 'kit',
                dir,
                enabled: true,
                layout: {
                  kinds: { servers: [{ document: { name: 'files.json', path: manifest, content } }] },
                  onlyListed: false,
                  diagnostics: [],
                },
              },
            ],
          }),
      },
    ]);
    const session = await container.resolve(SessionLoader).open();
    const record = session.find<ServerRecord>('server', 'files') as ServerRecord;
    expect(record).toMatchObject({
      id: 'files',
      plugin: 'kit',
      path: manifest,
      command: '/opt/kit/bin/files',
      args: ['--root', dir],
      envKeys: ['TOKEN', 'PLUGIN_ROOT'],
    });
    const root = session.roots.find((candidate) => candidate.plugin === 'kit');
    expect(readRedactedServerDocument(record, root!)).toEqual({
      id: 'files',
      name: 'files',
      description: '',
      transport: 'stdio',
      command: '/opt/kit/bin/files',
      args: ['--root', dir],
      env: { TOKEN: REDACTED, PLUGIN_ROOT: REDACTED },
    });
    expect(JSON.stringify(session.toJSON())).not.toContain('tok-secret');
  });
});
