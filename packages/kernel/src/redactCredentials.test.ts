import { describe, expect, it } from 'vitest';
import { redactCredentials } from './redactCredentials.js';

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
