import fs from 'node:fs';
import path from 'node:path';
import { resolve } from '@loadout/kernel';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RuntimeApplier } from '../src/index.js';
import { STAGING_FOLDER } from '../src/RuntimeApplier.js';
import * as bundles from '../src/SkillBundle.js';
import { closeLoadouts, machine, openLoadout, skill } from '../src/testing/index.js';

// Staging can be made to fail for one root while the root before it is being flushed.
vi.mock('../src/SkillBundle.js', async (original) => {
  const actual = await original<typeof import('../src/SkillBundle.js')>();
  return { ...actual, flushWritten: vi.fn(actual.flushWritten), writeBundle: vi.fn(actual.writeBundle) };
});

afterEach(() => {
  vi.mocked(bundles.writeBundle).mockRestore();
  vi.mocked(bundles.flushWritten).mockClear();
  closeLoadouts();
  removeTestdirs();
});

describe('staging and flushing root by root', () => {
  it("each root's staged files are flushed as that root is staged, and all before the first rename", async () => {
    const m = machine({ capabilities: { skills: { notes: { 'SKILL.md': skill('notes') }, deploy: { 'SKILL.md': skill('deploy') } } } });
    const applier = resolve(openLoadout(m), RuntimeApplier);
    const result = await applier.apply({ runtimes: ['claude-code', 'codex'] });
    expect(result.changeCount).toBe(4);
    const flushed = vi
      .mocked(bundles.flushWritten)
      .mock.calls.map(([dirs, files]) => [dirs, files.map((file) => path.relative(m.home, file))]);
    expect(flushed).toEqual([
      [
        [path.join(m.home, '.claude/skills', STAGING_FOLDER)],
        [`.claude/skills/${STAGING_FOLDER}/deploy-0/SKILL.md`, `.claude/skills/${STAGING_FOLDER}/notes-1/SKILL.md`],
      ],
      [
        [path.join(m.home, '.agents/skills', STAGING_FOLDER)],
        [`.agents/skills/${STAGING_FOLDER}/deploy-0/SKILL.md`, `.agents/skills/${STAGING_FOLDER}/notes-1/SKILL.md`],
      ],
    ]);
    for (const root of ['.claude/skills', '.agents/skills']) {
      expect(fs.readdirSync(path.join(m.home, root)).sort()).toEqual(['.loadout-manifest.json', 'deploy', 'notes']);
    }
  });

  it('a root that fails to stage while the one before it is flushed leaves every root as it was', async () => {
    const m = machine({ capabilities: { skills: { notes: { 'SKILL.md': skill('notes') }, deploy: { 'SKILL.md': skill('deploy') } } } });
    const applier = resolve(openLoadout(m), RuntimeApplier);
    const write = vi.mocked(bundles.writeBundle);
    const real = write.getMockImplementation() as typeof bundles.writeBundle;
    write.mockImplementation((dir, bundle) => {
      if (dir.includes(`${path.sep}.agents${path.sep}`)) throw Object.assign(new Error('no room left'), { code: 'ENOSPC' });
      return real(dir, bundle);
    });
    await expect(applier.apply({ runtimes: ['claude-code', 'codex'] })).rejects.toThrow('no room left');
    expect(vi.mocked(bundles.flushWritten)).toHaveBeenCalledTimes(1);
    // Nothing renamed into place, no staging folder left, and the flush still running was waited for.
    expect(fs.readdirSync(path.join(m.home, '.claude/skills')).filter((name) => name !== '.loadout-manifest.json')).toEqual([]);
    expect(fs.readdirSync(path.join(m.home, '.agents/skills')).filter((name) => name !== '.loadout-manifest.json')).toEqual([]);
    await expect(vi.mocked(bundles.flushWritten).mock.results[0]?.value).resolves.toBeUndefined();
  });
});
