import { describe, expect, it } from 'vitest';
import { parsePluginRef } from './parsePluginRef.js';

describe('parsePluginRef', () => {
  it.each(['main', 'v1.2.3', 'release/2026-12', 'feature_x'])('accepts %s', (ref) => {
    expect(parsePluginRef(ref)).toBe(ref);
  });

  it.each([
    '',
    '-c',
    '--upload-pack=touch',
    '--output=/tmp/x',
    'a..b',
    'a b',
    'main\n',
    'x;rm',
    '$(touch)',
    'a/.hidden',
    'a/-x',
    'a/',
    'a.lock',
    'a//b',
    'x'.repeat(256),
  ])('refuses %j', (ref) => {
    expect(() => parsePluginRef(ref)).toThrow(expect.objectContaining({ code: 'PLUGIN_REF_INVALID', category: 'invalid' }));
  });
});
