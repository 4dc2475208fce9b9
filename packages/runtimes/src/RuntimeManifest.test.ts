import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { MANIFEST_FILE, RuntimeManifest } from './RuntimeManifest.js';

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
    const root = testdir({ [MANIFEST_FILE]: JSON.stringify({ version: 1, entries: [older, { ...older, path: 'café-skill', name: 'café-skill' }] }) });
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
