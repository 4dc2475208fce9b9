import { describe, expect, it } from 'vitest';
import { redactArguments, redactCredentials } from '../../src/index.js';

// Hostile inputs for the kernel's one redaction module: what an MCP server document, a plugin URL
// or an error message may carry, and what must never be served as written.

describe('11.6 credentials in arguments and URL queries', () => {
  it.each([
    [['--token=sk-live-0123'], ['--token=[redacted]']],
    [
      ['--api-key', 'abc123secret', '--port', '8080'],
      ['--api-key', '[redacted]', '--port', '8080'],
    ],
    [
      ['--apiKey', 'abc123secret'],
      ['--apiKey', '[redacted]'],
    ],
    [
      ['-password', 'hunter2'],
      ['-password', '[redacted]'],
    ],
    [
      ['--client-secret=xyz', '--secret-access-key', 'wJalrXUt'],
      ['--client-secret=[redacted]', '--secret-access-key', '[redacted]'],
    ],
    [
      ['env', 'GITHUB_TOKEN=ghp_x', 'node', 'srv.js'],
      ['env', 'GITHUB_TOKEN=[redacted]', 'node', 'srv.js'],
    ],
    [
      ['--header', 'Authorization: Bearer abc.def'],
      ['--header', 'Authorization: [redacted]'],
    ],
    [
      ['--header', 'X-Api-Key: k-123'],
      ['--header', 'X-Api-Key: [redacted]'],
    ],
    [['https://mcp.example/sse?api_key=qwerty&region=eu'], ['https://mcp.example/sse?api_key=[redacted]&region=eu']],
    [['https://user:pw@mcp.example/x'], ['https://mcp.example/x']],
    [
      ['run', 'ghp_abcdefghijklmnopqrstuvwxyzABCD1234'],
      ['run', '[redacted]'],
    ],
  ])('%j is served as %j', (args, expected) => {
    expect(redactArguments(args)).toEqual(expected);
  });

  it.each([
    [
      ['mysql', '-u', 'root', '-p', 'hunter2horse'],
      ['mysql', '-u', 'root', '-p', '[redacted]'],
    ],
    [
      ['mysql', '-pS3cr3tPass'],
      ['mysql', '-p[redacted]'],
    ],
    [
      ['server', '-p', '8080', '-p127.0.0.1:80:80', '-pv', '-print'],
      ['server', '-p', '8080', '-p127.0.0.1:80:80', '-pv', '-print'],
    ],
    [
      ['--url', 'https://hooks.slack.com/services/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'],
      ['--url', 'https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/[redacted]'],
    ],
    [['https://discord.com/api/webhooks/123456789/abcdefghij-KLMNOP'], ['https://discord.com/api/webhooks/123456789/[redacted]']],
    [['https://relay.example/in/Zq8mN3vB7xK2pL9wR4tY6uH1/events'], ['https://relay.example/in/[redacted]/events']],
  ])('37 L7 %j is served as %j', (args, expected) => {
    expect(redactArguments(args)).toEqual(expected);
  });

  it('37 L7 keeps URL paths of words, slugs and versions readable', () => {
    const urls = [
      'https://github.com/acme/pdf-tools-2024/tree/v1.2.3',
      'https://registry.example/@scope/server-pdf/-/server-pdf-1.0.0.tgz',
    ];
    expect(redactArguments(urls)).toEqual(urls);
  });

  it('keeps arguments that name no credential as they are', () => {
    const args = [
      '--author',
      'Ada',
      '--token-file',
      '/run/secrets/t',
      '--port',
      '3000',
      '-y',
      '@scope/server-pdf',
      '--no-auth',
      '--verbose',
    ];
    expect(redactArguments(args)).toEqual(args);
  });

  it.each([
    ['https://host/x?token=abc', 'https://host/x?token=[redacted]'],
    [
      'clone https://gitlab.example/g/r.git?private_token=glpat-123 failed',
      'clone https://gitlab.example/g/r.git?private_token=[redacted] failed',
    ],
    ['https://host/cb#access_token=abc&state=1', 'https://host/cb#access_token=[redacted]&state=1'],
    [
      'https://s3.example/o?X-Amz-Credential=AK%2F1&X-Amz-Signature=ff00&x-id=GetObject',
      'https://s3.example/o?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]&x-id=GetObject',
    ],
    ['https://host/search?q=token&page=2', 'https://host/search?q=token&page=2'],
  ])('%s → %s', (input, expected) => {
    expect(redactCredentials(input)).toBe(expected);
  });
});
