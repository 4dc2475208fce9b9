import { contribute, createKernel, PluginSource, resolvePlaces, SessionLoader } from '@loadout/kernel';
import { removeTestdirs, testdir } from '@loadout/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
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
      (c) => contribute(c, PluginSource, { listInstalledPlugins: () => [] }),
    ]);
    const session = await container.resolve(SessionLoader).open();
    const json = JSON.stringify(session.toJSON());
    expect(session.recordsOf('server').map((s) => s.id)).toEqual(['MyServer', 'remote']);
    expect(json).not.toContain('sk-secret');
    expect(json).not.toContain('tok3n');
    expect(session.find('server', 'myserver')?.name).toBe('Mine');
    expect(session.diagnostics.map((d) => d.code).sort()).toEqual(['DOCUMENT_INVALID', 'JSON_MALFORMED', 'SERVER_ID_INVALID']);
  });
});
