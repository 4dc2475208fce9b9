import fs from 'node:fs';
import path from 'node:path';
import { resolve, type Session, SessionLoader } from '@loadout/kernel';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { BUNDLE_STAMPS_FILE } from '../src/BundleStampCache.js';
import { ListingBudget, RuntimeApplier, RuntimePlanner } from '../src/index.js';
import type { PlannedChange } from '../src/RuntimePlan.js';
import { readSkillBundle } from '../src/SkillBundle.js';
import { closeLoadouts, machine, type Machine, openLoadout, openSession, skill } from '../src/testing/index.js';

afterEach(() => {
  closeLoadouts();
  removeTestdirs();
});

const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'] as const;

/** Six owner skills, each with a note and a nested reference, applied into Claude Code; the stamps then taken and trusted. */
async function settled(): Promise<{ m: Machine; applier: RuntimeApplier; stampsFile: string }> {
  const m = machine({
    capabilities: {
      skills: Object.fromEntries(names.map((name) => [name, { 'SKILL.md': skill(name), 'notes.md': 'note\n', ref: { 'a.md': 'ref\n' } }])),
    },
  });
  const applier = resolve(openLoadout(m), RuntimeApplier);
  expect((await applier.apply({ runtimes: ['claude-code'] })).changeCount).toBe(names.length);
  // A stamp of anything changed within the last second is not trusted: let the copies age.
  await new Promise((done) => setTimeout(done, 1100));
  expect((await applier.apply({ runtimes: ['claude-code'] })).changeCount).toBe(0);
  return { m, applier, stampsFile: path.join(m.places.dataDir, BUNDLE_STAMPS_FILE) };
}

const source = (m: Machine, name: string, file = ''): string => path.join(m.places.capabilitiesDir, 'skills', name, file);
const copy = (m: Machine, name: string, file = ''): string => path.join(m.home, '.claude/skills', name, file);

/** Writes `text` over `file` (the same size as before), then sets its modification time back to what it was. */
function editKeepingTimes(file: string, text: string): void {
  const before = fs.statSync(file);
  expect(Buffer.byteLength(text)).toBe(before.size);
  fs.writeFileSync(file, text);
  fs.utimesSync(file, before.atime, before.mtime);
}

describe('an apply with nothing changed knows the bundles by their stamps', () => {
  it('keeps the stamps of every source and copy, and rewrites nothing when nothing changed', async () => {
    const { m, applier, stampsFile } = await settled();
    const kept = JSON.parse(fs.readFileSync(stampsFile, 'utf8')) as { bundles: Record<string, { files: Record<string, string> }> };
    for (const name of names) {
      expect(Object.keys(kept.bundles[source(m, name).replace(/\/$/, '')]?.files ?? {}).sort()).toEqual([
        '',
        'SKILL.md',
        'notes.md',
        'ref',
        'ref/a.md',
      ]);
      expect(kept.bundles[copy(m, name).replace(/\/$/, '')]).toBeDefined();
    }
    const before = fs.statSync(stampsFile);
    const again = await applier.apply({ runtimes: ['claude-code'] });
    expect([again.changeCount, again.upToDate]).toEqual([0, true]);
    expect(fs.statSync(stampsFile).mtimeMs).toBe(before.mtimeMs);
    expect(fs.statSync(stampsFile).ino).toBe(before.ino);
  });

  it('still sees every kind of change to a source: an edit with its time set back, a file added, removed or renamed, a nested edit', async () => {
    const { m, applier } = await settled();
    editKeepingTimes(source(m, 'alpha', 'SKILL.md'), skill('alpha').replace('one thing', 'One thing'));
    fs.writeFileSync(source(m, 'bravo', 'extra.md'), 'extra\n');
    fs.rmSync(source(m, 'charlie', 'notes.md'));
    fs.renameSync(source(m, 'delta', 'notes.md'), source(m, 'delta', 'NOTES.md'));
    editKeepingTimes(source(m, 'echo', 'ref/a.md'), 'REF\n');
    const result = await applier.apply({ runtimes: ['claude-code'] });
    expect(result.runtimes[0]?.changes.map((change) => `${change.action} ${change.name}`).sort()).toEqual([
      'update alpha',
      'update bravo',
      'update charlie',
      'update delta',
      'update echo',
    ]);
    for (const name of names) {
      for (const file of fs.readdirSync(source(m, name), { recursive: true }) as string[]) {
        if (fs.statSync(source(m, name, file)).isFile())
          expect(fs.readFileSync(copy(m, name, file), 'utf8')).toBe(fs.readFileSync(source(m, name, file), 'utf8'));
      }
    }
    expect(fs.existsSync(copy(m, 'charlie', 'notes.md'))).toBe(false);
    expect(fs.existsSync(copy(m, 'delta', 'notes.md'))).toBe(false);
  });

  it.each([
    [
      'an edit of the same size with its time set back',
      (m: Machine) => editKeepingTimes(copy(m, 'alpha', 'SKILL.md'), skill('alpha').replace('one thing', 'One thing')),
    ],
    ['a nested edit with its time set back', (m: Machine) => editKeepingTimes(copy(m, 'alpha', 'ref/a.md'), 'REF\n')],
    ['a file added', (m: Machine) => fs.writeFileSync(copy(m, 'alpha', 'mine.md'), 'mine\n')],
    ['a file removed', (m: Machine) => fs.rmSync(copy(m, 'alpha', 'notes.md'))],
    ['a file renamed', (m: Machine) => fs.renameSync(copy(m, 'alpha', 'notes.md'), copy(m, 'alpha', 'NOTES.md'))],
    [
      'the folder replaced by another of the same names and sizes',
      (m: Machine) => {
        fs.rmSync(copy(m, 'alpha'), { recursive: true });
        fs.cpSync(copy(m, 'bravo'), copy(m, 'alpha'), { recursive: true });
        fs.writeFileSync(copy(m, 'alpha', 'SKILL.md'), skill('alpha').replace('one thing', 'One thing'));
      },
    ],
  ])('still sees a copy the user changed: %s', async (_what, change) => {
    const { m, applier } = await settled();
    change(m);
    const check = await applier.apply({ runtimes: ['claude-code'], mode: 'check' });
    expect(check.upToDate).toBe(false);
    expect(check.runtimes[0]?.status).toBe('conflict');
    expect(check.runtimes[0]?.findings.map((finding) => finding.message).join('\n')).toContain('alpha');
  });

  it('still sees a copy folder deleted, and one put back by hand with the same bytes', async () => {
    const { m, applier } = await settled();
    const saved = path.join(m.base, 'alpha-saved');
    fs.renameSync(copy(m, 'alpha'), saved);
    const gone = await applier.apply({ runtimes: ['claude-code'], mode: 'check' });
    expect(gone.runtimes[0]?.changes.map((change) => `${change.action} ${change.name}`)).toEqual(['create alpha']);
    fs.cpSync(saved, copy(m, 'alpha'), { recursive: true });
    fs.rmSync(saved, { recursive: true });
    expect((await applier.apply({ runtimes: ['claude-code'], mode: 'check' })).upToDate).toBe(true);
  });

  it('reads every time a bundle holding a link that leads nowhere yet: its target appearing is seen', async () => {
    const m = machine({ capabilities: { skills: { alpha: { 'SKILL.md': skill('alpha') } }, shared: {} } });
    fs.symlinkSync('../../shared/extra.md', source(m, 'alpha', 'extra.md'));
    const applier = resolve(openLoadout(m), RuntimeApplier);
    expect((await applier.apply({ runtimes: ['claude-code'] })).changeCount).toBe(1);
    await new Promise((done) => setTimeout(done, 1100));
    expect((await applier.apply({ runtimes: ['claude-code'] })).changeCount).toBe(0);
    // The link's target appears: neither the link nor its folder moves.
    fs.writeFileSync(path.join(m.places.capabilitiesDir, 'shared/extra.md'), 'now here\n');
    const result = await applier.apply({ runtimes: ['claude-code'] });
    expect(result.runtimes[0]?.changes.map((change) => `${change.action} ${change.name}`)).toEqual(['update alpha']);
    expect(fs.readFileSync(copy(m, 'alpha', 'extra.md'), 'utf8')).toBe('now here\n');
  });

  it('a copy known by its stamps is not listed again for nested skills, yet a skill nested in it since is seen', async () => {
    const m = machine({
      capabilities: { skills: { solo: { 'SKILL.md': skill('solo') }, pair: { 'SKILL.md': skill('pair'), docs: { 'a.md': 'a\n' } } } },
    });
    const applier = resolve(openLoadout(m), RuntimeApplier);
    expect((await applier.apply({ runtimes: ['codex'] })).changeCount).toBe(2);
    await new Promise((done) => setTimeout(done, 1100));
    expect((await applier.apply({ runtimes: ['codex'] })).changeCount).toBe(0);
    // Codex looks for skills nested in folders; one appears inside each copy Loadout wrote.
    const codexCopy = (name: string, file = ''): string => path.join(m.home, '.agents/skills', name, file);
    for (const [outer, inner] of [
      ['solo', 'inner-solo'],
      ['pair', 'inner-pair'],
    ] as const) {
      fs.mkdirSync(codexCopy(outer, `docs/${inner}`), { recursive: true });
      fs.writeFileSync(codexCopy(outer, `docs/${inner}/SKILL.md`), skill(inner));
    }
    const result = await applier.apply({ runtimes: ['codex'], mode: 'check' });
    const seen = result.runtimes[0]?.sees.map((copy) => copy.name) ?? [];
    expect(seen).toEqual(expect.arrayContaining(['solo', 'pair', 'inner-solo', 'inner-pair']));
  });

  it('a damaged stamps file only costs the reads it would have saved, and is written again', async () => {
    const { applier, stampsFile } = await settled();
    fs.writeFileSync(stampsFile, '{"version": 1, "bundles": {"relative/path": 1}}');
    expect((await applier.apply({ runtimes: ['claude-code'] })).upToDate).toBe(true);
    expect(Object.keys((JSON.parse(fs.readFileSync(stampsFile, 'utf8')) as { bundles: object }).bundles)).toHaveLength(names.length * 2);
  });
});

describe('a listing-budget report keeps the stamps its plan took', () => {
  it('writes the bundle stamps as an apply does, and a later report still sees a source edited since', async () => {
    const m = machine({ capabilities: { skills: Object.fromEntries(names.map((name) => [name, { 'SKILL.md': skill(name) }])) } });
    const container = openLoadout(m);
    const budget = resolve(container, ListingBudget);
    const stampsFile = path.join(m.places.dataDir, BUNDLE_STAMPS_FILE);
    // Stamps of anything changed within the last second are not kept: let the sources age first.
    await new Promise((done) => setTimeout(done, 1100));
    const descriptionOf = async (name: string): Promise<number | undefined> => {
      const report = await budget.report(await openSession(container, null), ['claude-code']);
      const listing = report.runtimes.find((runtime) => runtime.runtime === 'claude-code')?.listing;
      return listing?.observed === true ? listing.entries.find((entry) => entry.name === name)?.descriptionChars : undefined;
    };
    const first = await descriptionOf('alpha');
    const kept = JSON.parse(fs.readFileSync(stampsFile, 'utf8')) as { bundles: Record<string, unknown> };
    for (const name of names) expect(kept.bundles[source(m, name).replace(/\/$/, '')]).toBeDefined();
    // Not a cache that answers for a changed skill: the edit moves the file's stamp, so it is read again.
    const longer = 'A much longer description than the one before it.';
    fs.writeFileSync(source(m, 'alpha', 'SKILL.md'), `---\nname: alpha\ndescription: ${longer}\n---\nBody.\n`);
    expect(first).toBe('alpha does one thing well.'.length);
    expect(await descriptionOf('alpha')).toBe(longer.length);
  });
});

describe("a plan takes each SKILL.md from the session's scan, never a stale one", () => {
  /** A plan of Claude Code from a session that kept its documents, after `between` ran between the scan and the plan. */
  async function planAfterScan(m: Machine, between: (session: Session) => void): Promise<PlannedChange[]> {
    const container = openLoadout(m);
    const session = await container.resolve(SessionLoader).open({ project: null, keepDocuments: true });
    try {
      between(session);
      const plan = await resolve(container, RuntimePlanner).plan(session, ['claude-code'], { exactly: true });
      plan.stamps.save();
      return plan.changes();
    } finally {
      session.dispose();
    }
  }
  const hashOf = (m: Machine, name: string): string | undefined => readSkillBundle(path.dirname(source(m, name)), source(m, name))?.hash;

  it('a SKILL.md edited before the scan, its time set back, is planned and copied as it is now', async () => {
    const { m, applier } = await settled();
    const edited = skill('alpha').replace('one thing', 'One thing');
    editKeepingTimes(source(m, 'alpha', 'SKILL.md'), edited);
    const changes = await planAfterScan(m, (session) => {
      // The scan kept what it read of every skill, with the frontmatter it read from it.
      expect(session.documents?.get(source(m, 'alpha', 'SKILL.md'))?.text).toBe(edited);
      expect(session.documents?.get(source(m, 'bravo', 'SKILL.md'))?.frontmatter).toEqual({
        name: 'bravo',
        description: 'bravo does one thing well.',
      });
    });
    expect(changes.map((change) => `${change.action} ${change.name} ${change.hash}`)).toEqual([`update alpha ${hashOf(m, 'alpha')}`]);
    expect((await applier.apply({ runtimes: ['claude-code'] })).changeCount).toBe(1);
    expect(fs.readFileSync(copy(m, 'alpha', 'SKILL.md'), 'utf8')).toBe(edited);
  });

  it('a SKILL.md edited after the scan is never copied as the scan read it: the write refuses, and the next apply copies it as it is now', async () => {
    const { m, applier } = await settled();
    const file = source(m, 'alpha', 'SKILL.md');
    const second = skill('alpha').replace('one thing', 'One thing');
    const third = skill('alpha').replace('one thing', 'ONE thing');
    // The second text, its stamp kept by a plan and trusted (a second old), not yet copied.
    fs.writeFileSync(file, second);
    await new Promise((done) => setTimeout(done, 1100));
    expect(await planAfterScan(m, () => undefined)).toHaveLength(1);
    // The scan reads the second text with its kept stamp; the third is written before the plan.
    const changes = await planAfterScan(m, () => editKeepingTimes(file, third));
    const update = changes.find((change) => change.name === 'alpha');
    // The command plans what its scan saw; its write reads the bundle again and refuses a changed one.
    expect(update?.action).toBe('update');
    expect(() => update?.bundle?.files).toThrow(expect.objectContaining({ code: 'RUNTIME_CHANGED_DURING_APPLY' }));
    // The next command scans the third text, whose stamp is not the kept one: it is read, planned and copied.
    expect((await applier.apply({ runtimes: ['claude-code'] })).changeCount).toBe(1);
    expect(fs.readFileSync(copy(m, 'alpha', 'SKILL.md'), 'utf8')).toBe(third);
  });

  it('an open asked to keep nothing keeps nothing', async () => {
    const m = machine({ capabilities: { skills: { alpha: { 'SKILL.md': skill('alpha') } } } });
    const session = await openSession(openLoadout(m), null);
    try {
      expect(session.recordsOf('skill')).toHaveLength(1);
      expect(session.documents).toBeNull();
    } finally {
      session.dispose();
    }
  });
});
