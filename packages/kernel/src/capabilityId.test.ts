import { describe, expect, it } from 'vitest';
import { capabilityId, collisionKey, pathStem, slugify } from './capabilityId.js';

describe('slugify', () => {
  it.each([
    ['PDF Forms', 'pdf-forms'],
    ['  --Hello__World--  ', 'hello-world'],
    ['já é', 'j'],
    ['中文技能', ''],
    ['a'.repeat(70), 'a'.repeat(64)],
    [`${'a'.repeat(63)} b`, 'a'.repeat(63)],
  ])('%j → %j', (input, expected) => {
    expect(slugify(input)).toBe(expected);
  });
});

describe('capabilityId', () => {
  it('takes the slug of the frontmatter name first', () => {
    expect(capabilityId('Writing Commit Messages', 'skills/other/SKILL.md')).toBe('writing-commit-messages');
  });

  it('falls back to the folder of a SKILL.md when the name has no ASCII slug', () => {
    expect(capabilityId('中文技能', 'skills/chinese-skill/SKILL.md')).toBe('chinese-skill');
  });

  it('falls back to the file stem for a single-file document', () => {
    expect(capabilityId(undefined, 'affordances/Shell Access.md')).toBe('shell-access');
  });

  it('ends with a stable hash of the path when neither gives a slug', () => {
    const id = capabilityId('技能', 'skills/技能/SKILL.md');
    expect(id).toMatch(/^h-[0-9a-f]{8}$/);
    expect(capabilityId('技能', 'skills/技能/SKILL.md')).toBe(id);
    expect(capabilityId('技能', 'skills/别的/SKILL.md')).not.toBe(id);
  });

  it('ignores a name that is not a string', () => {
    expect(capabilityId(42, 'skills/answer.md')).toBe('answer');
  });
});

describe('pathStem and collisionKey', () => {
  it('names SKILL.md and TASK.md by their folder', () => {
    expect(pathStem('skills/pdf/SKILL.md')).toBe('pdf');
    expect(pathStem('tasks/nightly/TASK.md')).toBe('nightly');
    expect(pathStem('servers/MyServer.json')).toBe('MyServer');
  });

  it('compares case-insensitively', () => {
    expect(collisionKey('MyServer')).toBe(collisionKey('myserver'));
  });
});
