import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { countingKind, freezeReads, loaderWorkspace, noteKind } from './testing/index.js';
import { removeTestdirs, writeTree } from '@loadout/files/testing';
import { type CapabilityFilter, CapabilityFilters } from './CapabilityFilter.js';
import { type CapabilityHolder, CapabilityHolds, refuseHeld } from './CapabilityHold.js';
import { type CapabilityKind, CapabilityKinds, type CapabilityRecord } from './CapabilityKind.js';
import { closeKernel, createKernel } from './createKernel.js';
import { type InstalledPlugin, PluginSource } from './PluginSource.js';
import { SessionLoader } from './SessionLoader.js';
import { SessionSections } from './SessionSection.js';
import { contribute } from './token.js';
import { resolvePlaces } from './Places.js';

afterEach(removeTestdirs);

const note = (name: string) => `---\nname: ${name}\ndescription: ${name} note\n---\n`;

const workspace = loaderWorkspace;

/** A test kernel: whatever its loader hands out is frozen ({@link freezeReads}). */
function kernel(home: string, plugins: InstalledPlugin[], options: { filter?: CapabilityFilter; holder?: CapabilityHolder } = {}) {
  const container = createKernel({ places: resolvePlaces({}, home) }, [
    {
      name: 'test',
      now: (c) => {
        contribute(c, CapabilityKinds, noteKind);
        contribute(c, PluginSource, { listInstalledPlugins: () => plugins });
        if (options.filter !== undefined) contribute(c, CapabilityFilters, options.filter);
        if (options.holder !== undefined) contribute(c, CapabilityHolds, options.holder);
      },
    },
  ]);
  freezeReads(container);
  return container;
}

describe('SessionLoader', () => {
  it('orders roots: project, owner, then enabled plugins in install order', async () => {
    const { home, plugins, project } = workspace({ plugins: { alpha: {}, beta: {}, gamma: {} } });
    plugins[1] = { ...plugins[1]!, enabled: false };
    const session = await kernel(home, plugins).resolve(SessionLoader).open({ project });
    expect(session.roots.map((r) => [r.level, r.plugin, r.writable])).toEqual([
      ['project', null, true],
      ['global', null, true],
      ['global', 'alpha', false],
      ['global', 'gamma', false],
    ]);
  });

  it("lets the first root win and reports every shadowed record; two plugins' copies of one id stand side by side", async () => {
    const { home, plugins, project } = workspace({
      project: { notes: { 'a.md': note('Shared') } },
      owner: { notes: { 'a.md': note('shared'), 'own.md': note('own') } },
      plugins: { alpha: { notes: { 'x.md': note('SHARED'), 'dup.md': note('dup') } }, beta: { notes: { 'dup.md': note('dup') } } },
    });
    const session = await kernel(home, plugins).resolve(SessionLoader).open({ project });
    const notes = session.recordsOf('note');
    expect(notes.map((n) => [n.id, n.level, n.plugin])).toEqual([
      ['dup', 'global', 'alpha'],
      ['dup', 'global', 'beta'],
      ['own', 'global', null],
      ['shared', 'project', null],
    ]);
    const shadowed = session.diagnostics.filter((d) => d.code === 'SHADOWED').map((d) => d.message);
    expect(shadowed).toHaveLength(2);
    expect(shadowed.join('\n')).not.toMatch(/plugin beta/);
    // A bare id finds the first plugin's (install order); a qualified one always finds its own.
    expect(session.find('note', 'dup')?.plugin).toBe('alpha');
    expect(session.find('note', 'beta:dup')?.plugin).toBe('beta');
    expect(session.find('note', 'alpha:shared')).toBeUndefined();
  });

  it('sees a document written after the previous session opened', async () => {
    const { home, plugins } = workspace({ owner: { notes: { 'a.md': note('a') } } });
    const loader = kernel(home, plugins).resolve(SessionLoader);
    expect((await loader.open()).recordsOf('note')).toHaveLength(1);
    writeTree(path.join(home, 'capabilities/notes'), { 'b.md': note('b') });
    expect((await loader.open()).recordsOf('note').map((n) => n.id)).toEqual(['a', 'b']);
  });

  it('keeps a bad document as a diagnostic and loads the good ones beside it', async () => {
    const { home, plugins } = workspace({
      owner: { notes: { 'good.md': note('good'), 'bad.md': '---js\n{ name: "x" }\n---\n', 'broken.md': '---\nname: [\n---\n' } },
    });
    const session = await kernel(home, plugins).resolve(SessionLoader).open();
    expect(session.recordsOf('note').map((n) => n.id)).toEqual(['good']);
    expect(session.diagnostics.map((d) => d.code).sort()).toEqual(['FRONTMATTER_ENGINE_REFUSED', 'FRONTMATTER_MALFORMED']);
  });

  it('leaves out what a filter turns off, in the session and in later lookups', async () => {
    const { home, plugins } = workspace({ owner: { notes: { 'a.md': note('a'), 'b.md': note('b') } } });
    const filter: CapabilityFilter = { forSession: () => (records) => ({ records: records.filter((r) => r.id !== 'b'), diagnostics: [] }) };
    const session = await kernel(home, plugins, { filter }).resolve(SessionLoader).open();
    expect(session.recordsOf('note').map((n) => n.id)).toEqual(['a']);
    expect(session.find('note', 'B')).toBeUndefined();
    expect(session.isOn({ ...session.recordsOf('note')[0]!, id: 'b' })).toBe(false);
  });

  it('37 holdOf asks the holders about one record in a scope, whether the filters would keep it or not', async () => {
    const { home, plugins, project } = workspace({ project: { notes: { 'p.md': note('p') } }, owner: { notes: { 'a.md': note('a') } } });
    const filter: CapabilityFilter = { forSession: () => () => ({ records: [], diagnostics: [] }) };
    const holder: CapabilityHolder = {
      forSession: (scope) => (records) =>
        new Map(
          records
            .filter((r) => r.level === 'project')
            .map((r) => [r, { decidedBy: 'untrusted-project' as const, reason: `${scope.project ?? ''} is not trusted` }]),
        ),
    };
    const loader = kernel(home, plugins, { filter, holder }).resolve(SessionLoader);
    const roots = loader.buildRoots(project);
    const records = loader.scanRoots(roots).records.get('note') ?? [];
    const p = records.find((r) => r.id === 'p') as CapabilityRecord;
    expect(await loader.holdOf(p, { project, roots })).toEqual({ decidedBy: 'untrusted-project', reason: `${project} is not trusted` });
    expect(await loader.holdOf(records.find((r) => r.id === 'a') as CapabilityRecord, { project, roots })).toBeNull();
    expect(await kernel(home, plugins).resolve(SessionLoader).holdOf(p, { project, roots })).toBeNull();
  });

  it('keeps what a holder holds, marked with why, after the filters; later lookups get the same hold', async () => {
    const { home, plugins, project } = workspace({
      project: { notes: { 'p.md': note('p') } },
      owner: { notes: { 'a.md': note('a'), 'b.md': note('b') } },
    });
    const filter: CapabilityFilter = { forSession: () => (records) => ({ records: records.filter((r) => r.id !== 'b'), diagnostics: [] }) };
    const asked: string[] = [];
    const holder: CapabilityHolder = {
      forSession: (scope) => (records) => {
        asked.push(...records.map((r) => r.id));
        return new Map(
          records
            .filter((r) => r.level === 'project')
            .map((r) => [r, { decidedBy: 'untrusted-project' as const, reason: `${scope.project ?? ''} is not trusted` }]),
        );
      },
    };
    const session = await kernel(home, plugins, { filter, holder }).resolve(SessionLoader).open({ project });
    expect(asked.sort()).toEqual(['a', 'p']);
    expect(
      session
        .recordsOf('note')
        .map((n) => [n.id, n.held?.decidedBy ?? null])
        .sort(),
    ).toEqual([
      ['a', null],
      ['p', 'untrusted-project'],
    ]);
    const p = session.find('note', 'p')!;
    expect(() => refuseHeld(p)).toThrow(
      expect.objectContaining({ code: 'CAPABILITY_UNTRUSTED', message: expect.stringContaining('is not trusted') }),
    );
    expect(() => refuseHeld(session.find('note', 'a')!)).not.toThrow();
    // A record read again on its own (a direct lookup) is held the same way; one held before and freed now loses its hold.
    const { held: _held, ...bare } = p;
    expect(session.admitted<CapabilityRecord>(bare)?.held?.decidedBy).toBe('untrusted-project');
    expect(
      session.admitted({ ...session.find('note', 'a')!, held: { decidedBy: 'unapproved-plugin', reason: 'stale' } })?.held,
    ).toBeUndefined();
    expect(session.admitted({ ...bare, id: 'b' })).toBeUndefined();
    const listed = (JSON.parse(JSON.stringify(session.toJSON())) as { notes: { id: string; held?: unknown }[] }).notes;
    expect(listed.find((n) => n.id === 'p')?.held).toEqual({ decidedBy: 'untrusted-project', reason: expect.any(String) });
  });

  it('lists every copy of a kind with on and shadowedBy, disabled plugins only when asked', async () => {
    const { home, plugins, project } = workspace({
      project: { notes: { 'a.md': note('Shared') } },
      owner: { notes: { 'a.md': note('shared'), 'off.md': note('off') } },
      plugins: {
        alpha: { notes: { 'only.md': note('only'), 'x.md': note('shared') } },
        beta: { notes: { 'b.md': note('beta-only'), 'o.md': note('only') } },
      },
    });
    plugins[0] = { ...plugins[0]!, enabled: false };
    const filter: CapabilityFilter = {
      forSession: () => (records) => ({ records: records.filter((r) => r.id !== 'off'), diagnostics: [] }),
    };
    const loader = kernel(home, plugins, { filter }).resolve(SessionLoader);
    const shown = (listed: Awaited<ReturnType<SessionLoader['listRecords']>>) =>
      listed.map((r) => [r.id, r.plugin ?? r.level, r.on, r.shadowedBy === null ? null : path.relative(home, r.shadowedBy)]);
    const projectCopy = 'project/.agents/notes/a.md';
    expect(shown(await loader.listRecords('note', project))).toEqual([
      ['shared', 'project', true, null],
      ['shared', 'global', false, projectCopy],
      ['off', 'global', false, null],
      ['beta-only', 'beta', true, null],
      ['only', 'beta', true, null],
    ]);
    // alpha comes before beta in install order, but a session does not read it: beta's copy still wins.
    expect(shown(await loader.listRecords('note', project, { includeDisabled: true }))).toEqual([
      ['shared', 'project', true, null],
      ['shared', 'global', false, projectCopy],
      ['off', 'global', false, null],
      ['only', 'alpha', false, 'plugins/beta/notes/o.md'],
      ['shared', 'alpha', false, projectCopy],
      ['beta-only', 'beta', true, null],
      ['only', 'beta', true, null],
    ]);
    // From a session the caller holds open, the same lists, and no other session is opened for them.
    const open = await loader.open({ project });
    const opened = vi.spyOn(loader, 'open');
    const fromOpen = loader.listRecordsOf(open, 'note', { includeDisabled: true });
    expect(opened).not.toHaveBeenCalled();
    expect(shown(fromOpen)).toEqual(shown(await loader.listRecords('note', project, { includeDisabled: true })));
    open.dispose();
  });

  it('refuses a project folder that does not exist', async () => {
    const { home, plugins } = workspace({});
    await expect(
      kernel(home, plugins)
        .resolve(SessionLoader)
        .open({ project: path.join(home, 'nope') }),
    ).rejects.toThrow(/does not exist/);
  });
});

describe('SessionLoader with a plugin root layout', () => {
  /** Notes, plus inline JSON notes a layout may declare: `{ "name": … }` as content. */
  const jsonNoteKind: CapabilityKind = {
    kind: 'jnote',
    folder: 'jnotes',
    sessionKey: 'jnotes',
    document: { idRule: 'entry', nameField: 'json' },
    readEntry: (entry) => {
      const content = entry.content as { name?: string } | undefined;
      if (content?.name === undefined) return { records: [], diagnostics: [] };
      return { records: [{ id: content.name, name: content.name, description: '', path: entry.path, gates: {} }], diagnostics: [] };
    },
  };

  it('reads folders, single entries, the root itself and inline documents where the layout says, and nothing else', async () => {
    const { home } = workspace({
      plugins: {
        alpha: {
          notes: { 'default.md': note('default') },
          more: { 'extra.md': note('extra'), '.hidden.md': note('hidden') },
          single: { 'one.md': note('one'), 'two.md': note('two') },
        },
      },
    });
    const dir = path.join(home, 'plugins', 'alpha');
    fs.symlinkSync(path.join(home, 'capabilities'), path.join(dir, 'out'));
    const plugins: InstalledPlugin[] = [
      {
        name: 'alpha',
        dir,
        enabled: true,
        layout: {
          kinds: {
            notes: [
              { folder: 'more' },
              { entry: 'single/one.md' },
              { folder: '../../capabilities' },
              { entry: 'out' },
              { entry: 'missing.md' },
            ],
            jnotes: [{ document: { name: 'inline.json', path: path.join(dir, 'manifest.json'), content: { name: 'inline' } } }],
          },
          onlyListed: false,
          diagnostics: [{ code: 'FROM_MANIFEST', severity: 'info', message: 'alpha: something the manifest said' }],
        },
      },
    ];
    const container = createKernel({ places: resolvePlaces({}, home) }, [
      {
        name: 'test',
        now: (c) => {
          contribute(c, CapabilityKinds, noteKind);
          contribute(c, CapabilityKinds, jsonNoteKind);
          contribute(c, PluginSource, { listInstalledPlugins: () => plugins });
        },
      },
    ]);
    const session = await container.resolve(SessionLoader).open();
    expect(session.recordsOf('note').map((n) => n.id)).toEqual(['extra', 'one']);
    expect(session.recordsOf('jnote').map((n) => [n.id, n.plugin, n.path])).toEqual([['inline', 'alpha', path.join(dir, 'manifest.json')]]);
    expect(session.diagnostics.map((d) => d.code).sort()).toEqual(['FROM_MANIFEST', 'PATH_OUTSIDE_ROOT', 'PATH_OUTSIDE_ROOT']);
    expect(JSON.stringify(session.toJSON().roots)).not.toContain('inline');

    // With onlyListed, a kind the layout does not name is not read, not even from its usual folder.
    plugins[0] = { ...plugins[0]!, layout: { kinds: { jnotes: [] }, onlyListed: true, diagnostics: [] } };
    const nothing = await container.resolve(SessionLoader).open();
    expect(nothing.recordsOf('note')).toEqual([]);
    plugins[0] = { ...plugins[0]!, layout: { kinds: {}, onlyListed: false, diagnostics: [] } };
    expect((await container.resolve(SessionLoader).open()).recordsOf('note').map((n) => n.id)).toEqual(['default']);
  });
});

describe('SessionLoader for some kinds only', () => {
  it('reads only the kinds asked for, renders no block, and shares its scans with full sessions', async () => {
    const reads = new Map<string, number>();
    const counted = (kind: string, folder: string) => countingKind(reads, kind, folder);
    const { home, plugins } = workspace({ owner: { notes: { 'a.md': note('a') }, cards: { 'b.md': note('b'), 'c.md': note('c') } } });
    {
      const container = createKernel({ places: resolvePlaces({}, home) }, [
        {
          name: 'test',
          now: (c) => {
            contribute(c, CapabilityKinds, counted('note', 'notes'));
            contribute(c, CapabilityKinds, counted('card', 'cards'));
            contribute(c, PluginSource, { listInstalledPlugins: () => plugins });
            contribute(c, SessionSections, {
              key: 'block',
              render: (session) => ({ text: `${session.recordsOf('card').length} cards`, diagnostics: [] }),
            });
          },
        },
      ]);
      const loader = container.resolve(SessionLoader);
      try {
        reads.clear();
        const cards = await loader.open({ kinds: ['card'] });
        expect(cards.recordsOf('card').map((record) => record.id)).toEqual(['b', 'c']);
        expect(cards.recordsOf('note')).toEqual([]);
        expect(Object.keys(cards.toJSON())).toEqual(['project', 'roots', 'cards', 'diagnostics']);
        expect([...reads]).toEqual([['card', 2]]);
        const listed = await loader.listRecords('note', null);
        expect(listed.map((record) => [record.id, record.on])).toEqual([['a', true]]);
        expect(reads.get('card')).toBe(2);

        reads.clear();
        const full = await loader.open();
        expect(full.toJSON()).toMatchObject({ notes: [{ id: 'a' }], cards: [{ id: 'b' }, { id: 'c' }], block: '2 cards' });
        // Nothing is kept without a source that keeps reads (see @loadout/kept-reads): all is read again.
        expect([...reads]).toEqual([
          ['note', 1],
          ['card', 2],
        ]);
      } finally {
        closeKernel(container);
      }
    }
  });
});

describe('a session of the test kernel', () => {
  it('throws when its records are sorted in place or a record is changed, and stays as it was', async () => {
    const { home, plugins, project } = workspace({ owner: { notes: { 'a.md': note('a'), 'b.md': note('b') } } });
    const session = await kernel(home, plugins).resolve(SessionLoader).open({ project });
    const records = session.recordsOf('note') as CapabilityRecord[];
    expect(() => records.sort((x, y) => y.id.localeCompare(x.id))).toThrow(TypeError);
    expect(() => records.push({ ...(records[0] as CapabilityRecord), id: 'c' })).toThrow(TypeError);
    expect(() => {
      (records[0] as { description: string }).description = 'changed';
    }).toThrow(TypeError);
    expect(() => {
      (records[0] as { gates: Record<string, boolean> }).gates.extra = true;
    }).toThrow(TypeError);
    expect(session.recordsOf('note').map((record) => `${record.id}:${record.description}`)).toEqual(['a:a note', 'b:b note']);
  });
});
