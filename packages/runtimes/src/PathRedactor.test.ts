import { describe, expect, it } from 'vitest';
import { PathRedactor, redactSecrets } from './PathRedactor.js';

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
  });

  it('replaces known folders inside text, not folders that merely start the same', () => {
    expect(redactor.text('read /home/ada/work/app/x and /home/adam/y')).toBe('read <project>/x and /home/adam/y');
  });
});

describe('redactSecrets', () => {
  it('removes credential-shaped values and URL credentials', () => {
    const text = redactSecrets(
      'a ghp_abcdefghijklmnopqrstuvwxyzABCD1234 b AKIAABCDEFGHIJKLMNOP c https://user:pw@example.com/x token=s3cr3tvalue d 0123456789abcdef0123456789abcdef01234567',
    );
    expect(text).not.toMatch(/ghp_|AKIA|user:pw|s3cr3t|0123456789abcdef0123/);
    expect(text).toContain('token=[redacted]');
  });

  it('keeps skill names, paths and short hashes readable', () => {
    const text = 'skill "sk-tools-2024" at ~/.claude/skills/a-very-long-skill-name-that-goes-on-and-on-for-a-while sha256:0123456789ab';
    expect(redactSecrets(text)).toBe(text);
  });
});
