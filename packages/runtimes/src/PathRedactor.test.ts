import { describe, expect, it } from 'vitest';
import { PathRedactor } from './PathRedactor.js';

describe('PathRedactor', () => {
  const redactor = new PathRedactor([
    { dir: '/home/ada', label: '~' },
    { dir: '/home/ada/work/app', label: '<project>' },
    { dir: '/srv/loadout/.loadout', label: '<data>' },
  ]);

  it('writes a path relative to the most specific known folder', () => {
    expect(redactor.path('/home/ada/.claude/skills/pdf')).toBe('~/.claude/skills/pdf');
    expect(redactor.path('/home/ada/work/app/.claude/skills/pdf')).toBe('<project>/.claude/skills/pdf');
    expect(redactor.path('/home/ada')).toBe('~');
  });

  it('shows only the last segment of a path under no known folder', () => {
    expect(redactor.path('/home/bob/secret/skill')).toBe('…/skill');
    // A folder that merely starts like a known one is not inside it.
    expect(redactor.path('/home/adam/skill')).toBe('…/skill');
    expect(redactor.path('/home/ada/../adam/skill')).toBe('…/skill');
    expect(redactor.path('/home/ada/work/app/../x')).toBe('~/work/x');
  });

  it('replaces known folders inside text, not folders that merely start the same', () => {
    expect(redactor.text('read /home/ada/work/app/x and /home/adam/y')).toBe('read <project>/x and /home/adam/y');
  });

  it('replaces every occurrence in every text it is given, the same each time', () => {
    const message = '/home/ada/a, /home/ada/work/app/b and /home/ada';
    expect(redactor.text(message)).toBe('~/a, <project>/b and ~');
    expect(redactor.text(message)).toBe('~/a, <project>/b and ~');
    // A folder given in an unresolved spelling is found in text by its resolved one.
    expect(new PathRedactor([{ dir: '/srv/x/../data/', label: '<data>' }]).text('at /srv/data/y')).toBe('at <data>/y');
  });
});
