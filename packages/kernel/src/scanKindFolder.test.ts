import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CapabilityKind } from './CapabilityKind.js';
import { DocumentRefusedError } from '@loadout/files';
import { readMarkdownCapability } from './readMarkdownCapability.js';
import type { Root } from './Root.js';
import { listKindFolder, readKindEntry, scanKindFolder } from './scanKindFolder.js';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';

afterEach(removeTestdirs);

/** A kind for kernel tests: `notes/<file>.md`, or `notes/<dir>/NOTE.md`; a file named `bad.md` is refused. */
const noteKind: CapabilityKind = {
  kind: 'note',
  folder: 'notes',
  sessionKey: 'notes',
  document: { file: 'NOTE.md', idRule: 'name', nameField: 'frontmatter' },
  readEntry: (entry) => {
    if (entry.name === 'bad.md') throw new DocumentRefusedError('NOTE_BAD', `${entry.name}: bad`);
    if (!entry.isDirectory && !entry.name.endsWith('.md')) return { records: [], diagnostics: [] };
    const read = readMarkdownCapability(
      entry.root.dir,
      entry.isDirectory ? path.join(entry.path, 'NOTE.md') : entry.path,
      noteKind.document,
    );
    const diagnostics = read?.draft.description === '' ? [{ code: 'NO_DESCRIPTION', severity: 'warning' as const, message: 'none' }] : [];
    return { records: read === null ? [] : [read.draft], diagnostics };
  },
};

const note = (name: string, description = `${name} note`) => `---\nname: ${name}\ndescription: ${description}\n---\n`;

function root(tree: TreeDescription, plugin: string | null = null): Root {
  return { dir: path.join(testdir({ root: tree }), 'root'), level: 'global', plugin, writable: plugin === null };
}

describe('scanKindFolder', () => {
  it('reads every entry from the disk with the kind’s reader and stamps the root on each record', () => {
    const at = root(
      { notes: { 'a.md': note('alpha'), folder: { 'NOTE.md': note('beta', '') }, '.draft.md': note('hidden'), 'readme.txt': 'x' } },
      'tools',
    );
    const scan = scanKindFolder(noteKind, at);
    expect(scan.folder).toBe(path.join(at.dir, 'notes'));
    expect(scan.names).toEqual(['.draft.md', 'a.md', 'folder', 'readme.txt']);
    expect(scan.entries.map((entry) => [entry.name, entry.isDirectory, entry.refused, entry.records.length])).toEqual([
      ['a.md', false, false, 1],
      ['folder', true, false, 1],
      ['readme.txt', false, false, 0],
    ]);
    expect(scan.records.map((record) => [record.kind, record.id, record.level, record.plugin])).toEqual([
      ['note', 'alpha', 'global', 'tools'],
      ['note', 'beta', 'global', 'tools'],
    ]);
    expect(scan.entries[1]?.diagnostics.map((d) => d.code)).toEqual(['NO_DESCRIPTION']);
  });

  it('marks refused entries, a refused document and a link out of the root, with a diagnostic each', () => {
    const at = root({ notes: { 'bad.md': note('bad') } });
    fs.mkdirSync(path.join(at.dir, '..', 'outside'));
    fs.symlinkSync('../../outside', path.join(at.dir, 'notes', 'escape'));
    const scan = scanKindFolder(noteKind, at);
    expect(scan.entries.map((entry) => [entry.name, entry.refused, entry.diagnostics.map((d) => d.code)])).toEqual([
      ['bad.md', true, ['NOTE_BAD']],
      ['escape', true, ['PATH_OUTSIDE_ROOT']],
    ]);
    expect(scan.entries[0]?.diagnostics[0]).toMatchObject({ severity: 'warning', path: path.join(at.dir, 'notes', 'bad.md') });
  });

  it('is empty for a missing kind folder and refuses one that leads out of its root', () => {
    expect(scanKindFolder(noteKind, root({}))).toMatchObject({ names: [], entries: [], records: [] });
    const at = root({});
    fs.mkdirSync(path.join(at.dir, '..', 'outside'));
    fs.symlinkSync('../outside', path.join(at.dir, 'notes'));
    expect(() => scanKindFolder(noteKind, at)).toThrow(expect.objectContaining({ code: 'PATH_OUTSIDE_ROOT' }));
  });
});

describe('listKindFolder', () => {
  it('lists a kind folder that leads out of its root as one refused entry, so a session reports it', () => {
    const at = root({});
    fs.mkdirSync(path.join(at.dir, '..', 'outside'));
    fs.symlinkSync('../outside', path.join(at.dir, 'notes'));
    expect(listKindFolder(noteKind, at)).toEqual([
      { name: '', isDirectory: false, refusal: expect.objectContaining({ code: 'PATH_OUTSIDE_ROOT' }) },
    ]);
    expect(listKindFolder(noteKind, root({}))).toBeNull();
  });
});

describe('readKindEntry', () => {
  it('reads one named entry as the scan reads it', () => {
    const at = root({ notes: { 'a.md': note('alpha'), 'bad.md': note('bad') } });
    const scan = scanKindFolder(noteKind, at);
    expect(readKindEntry(noteKind, at, 'a.md')?.records).toEqual(scan.entries[0]?.records);
    expect(readKindEntry(noteKind, at, 'bad.md')).toMatchObject({ records: [], refused: true, diagnostics: [{ code: 'NOTE_BAD' }] });
    expect(readKindEntry(noteKind, at, 'missing.md')).toBeNull();
  });
});
