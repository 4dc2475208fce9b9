import { describe, expect, it } from 'vitest';
import { parseResourceUri } from './resourceUris.js';

describe('parseResourceUri', () => {
  it.each([
    ['skill://pdf', { kind: 'skill', id: 'pdf', segments: [] }],
    ['skill://pdf/scripts/extract.py', { kind: 'skill', id: 'pdf', segments: ['scripts', 'extract.py'] }],
    ['skill://pdf/my%20notes.md', { kind: 'skill', id: 'pdf', segments: ['my notes.md'] }],
    ['skill://pdf/caf%C3%A9.md', { kind: 'skill', id: 'pdf', segments: ['café.md'] }],
    ['loadout://session/skills-block', { kind: 'block', section: 'skillsBlock' }],
    ['loadout://session/affordance-block', { kind: 'block', section: 'affordanceBlock' }],
    ['loadout://servers/github', { kind: 'server', id: 'github' }],
  ])('reads %s', (uri, address) => {
    expect(parseResourceUri(uri)).toEqual(address);
  });

  it.each([
    'skill://pdf/../secret',
    'skill://pdf/./SKILL.md',
    'skill://pdf/a//b',
    'skill://pdf/',
    'skill://pdf/..%2f..%2fsecret',
    'skill://pdf/%2e%2e',
    'skill://pdf/a%2Fb',
    'skill://pdf/a%5cb',
    'skill://pdf/a%00b',
    'skill://pdf/a\\b',
    'skill://pdf/a?x=1',
    'skill://pdf/a#frag',
    'skill://pdf/%E0%A4%A',
    'skill://../etc',
    'skill://',
    'loadout://servers/../x',
    'loadout://session/other',
    'file:///etc/passwd',
    'https://example.com/',
  ])('refuses %s', (uri) => {
    expect(() => parseResourceUri(uri)).toThrow(expect.objectContaining({ code: 'RESOURCE_URI_INVALID' }));
  });
});
