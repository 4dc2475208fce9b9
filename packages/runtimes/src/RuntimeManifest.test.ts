import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { MANIFEST_FILE, plainEntries, RuntimeManifest } from './RuntimeManifest.js';

afterEach(() => removeTestdirs());

const entry = {
  kind: 'skill' as const,
  path: 'pdf',
  name: 'pdf',
  hash: 'a'.repeat(64),
  source: { id: 'pdf', level: 'global' as const, plugin: null },
  writtenAt: '2026-12-02T00:00:00.000Z',
};

describe('RuntimeManifest', () => {
  it('round-trips its entries and removes its file when nothing is managed any more', () => {
    const root = testdir({});
    const manifest = RuntimeManifest.read(root);
    expect(manifest.entries()).toEqual([]);
    manifest.set(entry);
    manifest.write();
    expect(RuntimeManifest.read(root).get('pdf')).toEqual(entry);
    manifest.delete('pdf');
    manifest.write();
    expect(fs.existsSync(path.join(root, MANIFEST_FILE))).toBe(false);
  });

  it('reads an entry written before entries had a kind, and Unicode folder names', () => {
    const { kind: _kind, ...older } = entry;
    const root = testdir({
      [MANIFEST_FILE]: JSON.stringify({ version: 1, entries: [older, { ...older, path: 'café-skill', name: 'café-skill' }] }),
    });
    const manifest = RuntimeManifest.read(root);
    expect(manifest.get('pdf')).toEqual(entry);
    expect(manifest.get('café-skill')?.kind).toBe('skill');
  });

  it.each([
    ['not JSON', '{'],
    ['another version', '{"version":2,"entries":[]}'],
    ['a path that leaves the root', JSON.stringify({ version: 1, entries: [{ ...entry, path: '../../etc' }] })],
    ['a hash that is not sha256', JSON.stringify({ version: 1, entries: [{ ...entry, hash: 'x' }] })],
    ['a hidden folder', JSON.stringify({ version: 1, entries: [{ ...entry, path: '.loadout-staging' }] })],
  ])('refuses a manifest with %s', (_why, text) => {
    const root = testdir({ [MANIFEST_FILE]: text });
    expect(() => RuntimeManifest.read(root)).toThrow(expect.objectContaining({ code: 'RUNTIME_MANIFEST_INVALID' }));
  });
});

describe('plainEntries, the manifest check without the schema', () => {
  /** Each field of an entry with values around every rule the schema has. */
  const variants: Record<string, readonly unknown[]> = {
    kind: [undefined, 'skill', 'server', null, 1, ''],
    path: [
      'pdf',
      'café-skill',
      '',
      '.hidden',
      'a/b',
      'a\\b',
      'a\0b',
      'x'.repeat(255),
      'é'.repeat(128),
      'é'.repeat(127),
      1,
      null,
      undefined,
    ],
    name: ['pdf', '', 'x'.repeat(64), 'x'.repeat(65), '😀'.repeat(32), '😀'.repeat(33), 1, null, undefined],
    hash: ['a'.repeat(64), 'A'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), `${'a'.repeat(64)}\n`, 'g'.repeat(64), 1, undefined],
    source: [
      { id: 'pdf', level: 'global', plugin: null },
      { id: 'pdf', level: 'project', plugin: 'docs', extra: true },
      { id: '', level: 'global', plugin: null },
      { id: 'x'.repeat(65), level: 'global', plugin: null },
      { id: 'pdf', level: 'user', plugin: null },
      { id: 'pdf', level: 'global' },
      { id: 'pdf', level: 'global', plugin: 'p'.repeat(64) },
      { id: 'pdf', level: 'global', plugin: 'p'.repeat(65) },
      { id: 'pdf', level: 'global', plugin: 1 },
      ['pdf'],
      null,
      'pdf',
    ],
    writtenAt: ['2026-12-02T00:00:00.000Z', '', 1, null, undefined],
    extra: [undefined, 'kept out', { nested: true }],
  };
  const cases: unknown[] = [
    [],
    'x',
    { version: 1 },
    { version: 2, entries: [] },
    { version: 1, entries: {} },
    { version: 1, entries: [null] },
    { version: 1, entries: [[]] },
  ];
  for (const [field, values] of Object.entries(variants)) {
    for (const value of values) {
      const changed: Record<string, unknown> = { ...entry, [field]: value };
      if (value === undefined) delete changed[field];
      cases.push({ version: 1, entries: [entry, changed], other: 'ignored' });
    }
  }

  it.each(cases.map((raw) => [JSON.stringify(raw), raw]))('agrees with the schema on %s', (_shown, raw) => {
    const root = testdir({ [MANIFEST_FILE]: JSON.stringify(raw) });
    const fast = plainEntries(raw);
    let read: RuntimeManifest | Error;
    try {
      read = RuntimeManifest.read(root);
    } catch (error) {
      read = error as Error;
    }
    // What it accepts the schema accepts, to the same entries, field for field and in order; what
    // it leaves (a bad manifest, or a name over 64 UTF-16 units the schema may count in code
    // points) the schema judges, with the schema's error.
    if (!(read instanceof RuntimeManifest)) {
      expect(fast).toBeNull();
      expect(read).toMatchObject({ code: 'RUNTIME_MANIFEST_INVALID' });
    }
    if (fast !== null) {
      const byPath = [...new Map(fast.map((one) => [one.path, one])).values()].sort((a, b) =>
        a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
      );
      expect(JSON.stringify(byPath)).toBe(JSON.stringify((read as RuntimeManifest).entries()));
    }
  });

  it('takes every manifest Loadout writes without the schema', () => {
    const root = testdir({});
    const manifest = RuntimeManifest.read(root);
    manifest.set(entry);
    manifest.set({ ...entry, path: 'café-skill', name: 'café-skill', source: { id: 'cafe-skill', level: 'project', plugin: 'docs' } });
    manifest.write();
    const raw = JSON.parse(fs.readFileSync(path.join(root, MANIFEST_FILE), 'utf8')) as unknown;
    expect(plainEntries(raw)).toEqual(manifest.entries());
  });
});
