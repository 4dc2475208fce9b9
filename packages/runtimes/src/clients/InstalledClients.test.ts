import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeCodeAdapter } from '../adapters/claudeCodeAdapter.js';
import { CLAUDE_CODE_VERSIONS } from '../adapters/claudeCodeVersions.js';
import { codexAdapter } from '../adapters/codexAdapter.js';
import { compareVersions, factsForVersion, versionIn } from './ClientVersions.js';
import { CLIENT_VERSIONS_FILE, InstalledClients } from './InstalledClients.js';

afterEach(() => removeTestdirs());

/**
 * A machine with an executable `claude` on PATH that says `version` and counts how often it was
 * asked (the real clients are asked in packages/e2e; this one stands in for an installed binary).
 */
function machine(version: string) {
  const base = testdir({ bin: {}, data: {} });
  const bin = path.join(base, 'bin');
  const asked = path.join(base, 'asked');
  const write = (said: string): void => {
    fs.writeFileSync(path.join(bin, 'claude'), `#!/bin/sh\necho x >> '${asked}'\necho '${said} (Claude Code)'\n`, { mode: 0o755 });
  };
  write(version);
  const variables = { PATH: `${path.join(base, 'missing')}:${bin}:/usr/bin:/bin` };
  return {
    base,
    data: path.join(base, 'data'),
    variables,
    write,
    askedCount: (): number => (fs.existsSync(asked) ? fs.readFileSync(asked, 'utf8').split('\n').length - 1 : 0),
  };
}

describe('which client is installed', () => {
  it('asks the client on PATH once and keeps the answer until the executable changes', () => {
    const m = machine('2.1.332');
    const first = new InstalledClients(m.data, m.variables);
    expect(first.installed('claude')).toEqual({ binary: path.join(m.base, 'bin', 'claude'), version: '2.1.332' });
    first.save();
    expect(m.askedCount()).toBe(1);
    expect(new InstalledClients(m.data, m.variables).installed('claude')?.version).toBe('2.1.332');
    expect(m.askedCount()).toBe(1);

    m.write('2.1.400');
    const file = path.join(m.base, 'bin', 'claude');
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    const updated = new InstalledClients(m.data, m.variables);
    expect(updated.installed('claude')?.version).toBe('2.1.400');
    expect(m.askedCount()).toBe(2);
  });

  it('a damaged cache file costs one question, and is rewritten', () => {
    const m = machine('2.1.197');
    fs.mkdirSync(path.join(m.data, 'runtimes'), { recursive: true });
    fs.writeFileSync(path.join(m.data, CLIENT_VERSIONS_FILE), '{"version":1,"clients":{"relative":{"size":"x"}}}');
    const clients = new InstalledClients(m.data, m.variables);
    expect(clients.installed('claude')?.version).toBe('2.1.197');
    clients.save();
    expect(m.askedCount()).toBe(1);
    const kept = JSON.parse(fs.readFileSync(path.join(m.data, CLIENT_VERSIONS_FILE), 'utf8')) as { clients: Record<string, unknown> };
    expect(Object.keys(kept.clients)).toEqual([fs.realpathSync(path.join(m.base, 'bin', 'claude'))]);
  });

  it('no client on PATH, or one that says no version: the adapter is planned as it is', () => {
    const m = machine('not a version');
    const none = new InstalledClients(m.data, { PATH: path.join(m.base, 'missing') });
    expect(none.resolve(claudeCodeAdapter)).toEqual({ adapter: claudeCodeAdapter, client: null });
    const silent = new InstalledClients(m.data, m.variables).resolve(claudeCodeAdapter);
    expect(silent.adapter).toBe(claudeCodeAdapter);
    expect(silent.client).toEqual({ binary: path.join(m.base, 'bin', 'claude'), version: null, plannedAs: null });
  });

  it.each([
    ['2.1.332', '2.1.332', 'first-wins', 48, true],
    ['2.1.400', '2.1.332', 'first-wins', 48, true],
    ['2.1.250', '2.1.197', 'listed-first-runs', 26, false],
    ['2.1.197', '2.1.197', 'listed-first-runs', 26, false],
    ['1.0.0', '2.1.197', 'listed-first-runs', 26, false],
  ])('Claude Code %s is planned as %s: %s, %i built-in names', (installed, plannedAs, sameName, count, replaced) => {
    const m = machine(installed);
    const { adapter, client } = new InstalledClients(m.data, m.variables).resolve(claudeCodeAdapter);
    expect(client).toEqual({ binary: path.join(m.base, 'bin', 'claude'), version: installed, plannedAs });
    expect(adapter.sameName).toBe(sameName);
    expect(adapter.compiledIn?.names).toHaveLength(count);
    expect(adapter.compiledIn?.replacedBySkills).toBe(replaced);
    expect(adapter.discoveryRoots).toBe(claudeCodeAdapter.discoveryRoots);
  });
});

describe('version facts', () => {
  it('reads the first N.N.N of an answer and compares versions part by part', () => {
    expect(versionIn('2.1.332 (Claude Code)\n')).toBe('2.1.332');
    expect(versionIn('codex-cli 0.171.0')).toBe('0.171.0');
    expect(versionIn('Claude Code')).toBeNull();
    expect(compareVersions('2.1.10', '2.1.9')).toBeGreaterThan(0);
    expect(compareVersions('2.1', '2.1.0')).toBe(0);
  });

  it('2.1.332 knows 23 names 2.1.197 does not, and no longer has review', () => {
    const [older, newer] = CLAUDE_CODE_VERSIONS.versions.map((facts) => new Set(facts.compiledIn?.names ?? []));
    expect([...(newer ?? [])].filter((name) => !older?.has(name))).toHaveLength(23);
    expect([...(older ?? [])].filter((name) => !newer?.has(name))).toEqual(['review']);
    expect(factsForVersion({ command: 'x', versions: [] }, '1.0.0')).toBeNull();
  });
});

describe('Codex as installed', () => {
  it('is asked its version too, and keeps its system skills as folders it installs, not compiled-in names', () => {
    const base = testdir({ bin: { codex: '#!/bin/sh\necho codex-cli 0.171.0\n' } });
    fs.chmodSync(path.join(base, 'bin', 'codex'), 0o755);
    const { adapter, client } = new InstalledClients(null, { PATH: path.join(base, 'bin') }).resolve(codexAdapter);
    expect(client).toEqual({ binary: path.join(base, 'bin', 'codex'), version: '0.171.0', plannedAs: '0.171.0' });
    expect(adapter.sameName).toBe('all-listed');
    expect(adapter.compiledIn).toBeUndefined();
  });
});
