import { describe, expect, it } from 'vitest';
import { redactCredentials, redactSecrets } from './redactCredentials.js';

describe('redactCredentials', () => {
  it.each([
    ['clone https://user:tok3n@host/x.git failed', 'clone https://host/x.git failed'],
    ['https://ghp_secret@github.example/x', 'https://github.example/x'],
    ['https://u:p@ss@host/path', 'https://host/path'],
    ['wss://TOKEN@mcp.example/socket', 'wss://mcp.example/socket'],
    ['git+https://ghp_abc@host/repo', 'git+https://host/repo'],
    ['ssh://git@host/repo.git', 'ssh://git@host/repo.git'],
    ['ssh://git:hunter2@host/repo.git', 'ssh://host/repo.git'],
    ['no url here', 'no url here'],
    ['https://host/a@b', 'https://host/a@b'],
  ])('%s', (input, expected) => {
    expect(redactCredentials(input)).toBe(expected);
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
