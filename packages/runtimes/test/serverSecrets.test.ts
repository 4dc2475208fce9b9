import fs from 'node:fs';
import path from 'node:path';
import { resolve } from '@loadout/kernel';
import { removeTestdirs } from '@loadout/files/testing';
import { SecretStore } from '@loadout/servers';
import { parse as parseToml } from 'smol-toml';
import { afterEach, describe, expect, it } from 'vitest';
import { LoadoutLauncher, RuntimeApplier } from '../src/index.js';
import { closeLoadouts, machine, openLoadout, snapshot } from '../src/testing/runtimeFixture.js';

afterEach(() => {
  closeLoadouts();
  removeTestdirs();
});

const VALUE = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
const vault = JSON.stringify({
  name: 'Vault',
  command: 'node',
  args: ['vault.js'],
  cwd: '/srv/vault',
  env: { MODE: 'plain', VAULT_TOKEN: 'placeholder' },
  secrets: { VAULT_TOKEN: 'vault-token' },
});
const launcher: LoadoutLauncher = { command: '/usr/bin/node', args: ['/opt/loadout/main.js'], env: { LOADOUT_HOME: '/work/loadout' } };

describe('servers that name secrets', () => {
  it('are written as `loadout mcp run` entries that name the secret, never hold it; a missing one is said by name', async () => {
    const m = machine({ installed: ['claude-code', 'codex'], capabilities: { servers: { 'vault.json': vault } } });
    const container = openLoadout(m);
    container.register(LoadoutLauncher, { useValue: launcher });
    const applier = resolve(container, RuntimeApplier);

    const missing = await applier.apply({ mode: 'dry-run' });
    const finding = missing.findings.find((candidate) => candidate.code === 'SECRET_MISSING');
    expect(finding?.severity).toBe('warning');
    expect(finding?.message).toContain('"vault-token"');

    await new SecretStore(m.places.dataDir).set('vault-token', VALUE);
    const result = await applier.apply({});
    expect(result.ok).toBe(true);
    expect(result.findings.map((candidate) => candidate.code)).not.toContain('SECRET_MISSING');
    const words = [
      '/opt/loadout/main.js',
      'mcp',
      'run',
      'vault',
      '--secret',
      'VAULT_TOKEN=vault-token',
      '--cwd',
      '/srv/vault',
      '--',
      'node',
      'vault.js',
    ];
    const claude = JSON.parse(fs.readFileSync(path.join(m.home, '.claude', '.claude.json'), 'utf8')) as {
      mcpServers: Record<string, unknown>;
    };
    expect(claude.mcpServers.vault).toEqual({
      type: 'stdio',
      command: '/usr/bin/node',
      args: words,
      env: { MODE: 'plain', LOADOUT_HOME: '/work/loadout' },
    });
    const codex = parseToml(fs.readFileSync(path.join(m.home, '.codex', 'config.toml'), 'utf8')) as {
      mcp_servers: Record<string, unknown>;
    };
    expect(codex.mcp_servers.vault).toMatchObject({ command: '/usr/bin/node', args: words });
    // The working folder travels in the words, so no runtime is told it ignores one.
    expect(JSON.stringify(result)).not.toContain('SERVER_SETTING_IGNORED');

    // Nothing Loadout wrote but the store holds the value.
    const store = path.join(m.places.dataDir, 'secrets.json');
    const holding = Object.entries({ ...snapshot(m.home), ...snapshot(m.places.home) })
      .filter(([file, bytes]) => Buffer.from(bytes.split(':')[1] ?? '', 'base64').includes(VALUE) && !store.endsWith(file))
      .map(([file]) => file);
    expect(holding).toEqual([]);
    expect(JSON.stringify(result)).not.toContain(VALUE);
    expect((fs.statSync(store).mode & 0o777).toString(8)).toBe('600');
  });

  it('are held back where no launcher is known (a library caller), and an entry written before is retired', async () => {
    const m = machine({ installed: ['claude-code'], capabilities: { servers: { 'vault.json': vault } } });
    const withLauncher = openLoadout(m);
    withLauncher.register(LoadoutLauncher, { useValue: launcher });
    expect((await resolve(withLauncher, RuntimeApplier).apply({})).ok).toBe(true);
    closeLoadouts();
    const result = await resolve(openLoadout(m), RuntimeApplier).apply({});
    const claude = result.runtimes.find((part) => part.runtime === 'claude-code');
    expect(claude?.changes).toContainEqual(expect.objectContaining({ kind: 'server', action: 'retire', name: 'vault' }));
    expect(claude?.findings).toContainEqual(
      expect.objectContaining({ code: 'CAPABILITY_UNTRUSTED', message: expect.stringContaining('loadout mcp run') }),
    );
  });
});

describe('the secret store', () => {
  it('keeps values by name in a 0600 file, lists names only, and refuses bad names, empty values and a damaged file', async () => {
    const m = machine({ installed: [] });
    const store = new SecretStore(m.places.dataDir);
    await store.set('b-token', 'two');
    await store.set('a.token', 'one');
    expect(store.names()).toEqual(['a.token', 'b-token']);
    expect(store.value('a.token')).toBe('one');
    const file = path.join(m.places.dataDir, 'secrets.json');
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    const before = fs.readFileSync(file, 'utf8');
    await expect(store.set('../escape', 'x')).rejects.toMatchObject({ code: 'SECRET_NAME_INVALID' });
    await expect(store.set('ok', '')).rejects.toMatchObject({ code: 'SECRET_VALUE_INVALID' });
    await expect(store.remove('nothing')).rejects.toMatchObject({ code: 'SECRET_NOT_FOUND' });
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    await store.remove('a.token');
    expect(store.names()).toEqual(['b-token']);
    fs.writeFileSync(file, '{"version":1,"secrets":{"x":"s3cr3t-in-a-broken-file"');
    const error = (() => {
      try {
        store.names();
        return null;
      } catch (caught) {
        return caught as { code: string; message: string };
      }
    })();
    expect(error?.code).toBe('SECRET_STORE_INVALID');
    expect(error?.message).not.toContain('s3cr3t');
  });
});
