import { describe, expect, it } from 'vitest';
import type { KindDocument } from './CapabilityKind.js';
import { capabilityId, collisionKey, displayNameOf, namesRecord, pathStem, qualifiedId, slugify } from './capabilityId.js';

/** Kinds as the stores declare them: named by their written name, or by their entry. */
const folderOrFile: KindDocument = { file: 'SKILL.md', idRule: 'name', nameField: 'frontmatter' };
const singleFile: KindDocument = { idRule: 'name', nameField: 'frontmatter' };
const byFolder: KindDocument = { file: 'TASK.md', idRule: 'entry', nameField: 'frontmatter' };
const byFileStem: KindDocument = { idRule: 'entry', nameField: 'json' };

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
    expect(capabilityId('Writing Commit Messages', 'skills/other/SKILL.md', folderOrFile)).toBe('writing-commit-messages');
  });

  it('falls back to the folder of a folder document when the name has no ASCII slug', () => {
    expect(capabilityId('中文技能', 'skills/chinese-skill/SKILL.md', folderOrFile)).toBe('chinese-skill');
  });

  it('falls back to the file stem for a single-file document', () => {
    expect(capabilityId(undefined, 'affordances/Shell Access.md', singleFile)).toBe('shell-access');
  });

  it('ends with a stable hash of the path when neither gives a slug', () => {
    const id = capabilityId('技能', 'skills/技能/SKILL.md', folderOrFile);
    expect(id).toMatch(/^h-[0-9a-f]{8}$/);
    expect(capabilityId('技能', 'skills/技能/SKILL.md', folderOrFile)).toBe(id);
    expect(capabilityId('技能', 'skills/别的/SKILL.md', folderOrFile)).not.toBe(id);
  });

  it('ignores a name that is not a string', () => {
    expect(capabilityId(42, 'skills/answer.md', folderOrFile)).toBe('answer');
  });

  it('takes the entry as it is under the entry rule, whatever the name', () => {
    expect(capabilityId('Nightly Build', 'tasks/Nightly_Run/TASK.md', byFolder)).toBe('Nightly_Run');
    expect(capabilityId('GitHub', 'servers/MyServer.json', byFileStem)).toBe('MyServer');
  });
});

describe('pathStem and collisionKey', () => {
  it('names a kind’s folder document by its folder, any other file by its stem', () => {
    expect(pathStem('skills/pdf/SKILL.md', 'SKILL.md')).toBe('pdf');
    expect(pathStem('tasks/nightly/TASK.md', 'TASK.md')).toBe('nightly');
    expect(pathStem('tasks/nightly/task.md', 'TASK.md')).toBe('nightly');
    expect(pathStem('skills/TASK.md', 'SKILL.md')).toBe('TASK');
    expect(pathStem('servers/MyServer.json')).toBe('MyServer');
  });

  it('compares case-insensitively', () => {
    expect(collisionKey('MyServer')).toBe(collisionKey('myserver'));
  });
});

describe('displayNameOf', () => {
  it('shows a written name, a blank Markdown name as the id, a JSON name as written', () => {
    expect(displayNameOf('PDF Forms', 'pdf-forms', folderOrFile)).toBe('PDF Forms');
    expect(displayNameOf('  ', 'pdf', folderOrFile)).toBe('pdf');
    expect(displayNameOf(undefined, 'pdf', folderOrFile)).toBe('pdf');
    expect(displayNameOf(' ', 'gh', byFileStem)).toBe(' ');
  });
});

describe('qualified names', () => {
  it("a plugin's capability is named with its plugin; the owner's by its id", () => {
    expect(qualifiedId({ id: 'access', plugin: 'discord' })).toBe('discord:access');
    expect(qualifiedId({ id: 'access', plugin: null })).toBe('access');
  });

  it('a name matches by id, or by plugin:id for a plugin record, case-insensitively', () => {
    const record = { id: 'access', plugin: 'discord' };
    expect(namesRecord('ACCESS', record)).toBe(true);
    expect(namesRecord('Discord:access', record)).toBe(true);
    expect(namesRecord('telegram:access', record)).toBe(false);
    expect(namesRecord('discord:access', { id: 'access', plugin: null })).toBe(false);
    expect(namesRecord(':access', record)).toBe(false);
  });
});
