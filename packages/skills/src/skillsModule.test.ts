import { contribute, createKernel, PluginSource, resolvePlaces, SessionLoader } from '@loadout/kernel';
import { skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { SkillRecord } from './SkillRecord.js';
import { skillsModule } from './skillsModule.js';

afterEach(removeTestdirs);

async function session(home: string) {
  const container = createKernel({ places: resolvePlaces({}, home) }, [
    skillsModule,
    { name: 'test', now: (c) => contribute(c, PluginSource, { listInstalledPlugins: () => [] }) },
  ]);
  return container.resolve(SessionLoader).open();
}

describe('skills', () => {
  it('reads folder skills with resources and single-file skills', async () => {
    const home = testdir({
      capabilities: {
        skills: {
          pdf: { 'SKILL.md': skillMarkdown({ name: 'pdf', description: 'Read PDFs' }), 'forms.md': 'resource' },
          'quick-note.md': skillMarkdown({ name: 'quick-note', description: 'Take a note' }),
          'not-a-skill.txt': 'ignored',
          'empty-folder': {},
        },
      },
    });
    const s = await session(home);
    const skills = s.recordsOf<SkillRecord>('skill');
    expect(skills.map((k) => [k.id, k.folder === null ? null : 'folder'])).toEqual([
      ['pdf', 'folder'],
      ['quick-note', null],
    ]);
    expect(s.sections.get('skillsBlock')).toContain('- pdf: Read PDFs (read ');
    // Records are printed as they are (session --json): their fields keep this order.
    expect(skills.map((skill) => Object.keys(skill))).toEqual([
      ['id', 'name', 'description', 'path', 'gates', 'folder', 'kind', 'level', 'plugin', 'toolGrants', 'mayRun'],
      ['id', 'name', 'description', 'path', 'gates', 'folder', 'kind', 'level', 'plugin', 'toolGrants', 'mayRun'],
    ]);
    expect(skills[0]).toStrictEqual({
      id: 'pdf',
      name: 'pdf',
      description: 'Read PDFs',
      path: `${home}/capabilities/skills/pdf/SKILL.md`,
      gates: {},
      folder: `${home}/capabilities/skills/pdf`,
      kind: 'skill',
      level: 'global',
      plugin: null,
      toolGrants: [],
      mayRun: true,
    });
  });

  it('warns about Agent Skills rule breaks but still loads the skill', async () => {
    const home = testdir({
      capabilities: { skills: { Loud: { 'SKILL.md': skillMarkdown({ name: 'Loud Skill', description: '' }) } } },
    });
    const s = await session(home);
    expect(s.recordsOf('skill').map((k) => k.id)).toEqual(['loud-skill']);
    expect(s.diagnostics.map((d) => d.code).sort()).toEqual(['SKILL_DESCRIPTION_RULES', 'SKILL_NAME_RULES']);
  });

  it('names what did not fit the block budget instead of cutting silently', async () => {
    const skills: Record<string, string> = {};
    for (let i = 0; i < 200; i += 1) {
      skills[`s${String(i).padStart(3, '0')}.md`] = skillMarkdown({ name: `s${String(i).padStart(3, '0')}`, description: 'd'.repeat(100) });
    }
    const s = await session(testdir({ capabilities: { skills } }));
    const block = s.sections.get('skillsBlock') ?? '';
    expect(block.length).toBeLessThanOrEqual(12_000);
    const left = s.diagnostics.find((d) => d.code === 'BLOCK_BUDGET_EXCEEDED');
    expect(left?.message).toMatch(/were left out: s\d{3}/);
    expect(block).toContain('- s000: ');
    expect(block).not.toContain('- s199: ');
  });
});
