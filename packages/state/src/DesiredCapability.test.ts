import { describe, expect, it } from 'vitest';
import { parseDesiredCapabilities, parseStateScope } from './DesiredCapability.js';

describe('parseDesiredCapabilities', () => {
  it('accepts the shape and leaves on/off values to the writer', () => {
    const desired = [
      { kind: 'skill', id: 'pdf', enabled: 'maybe', gates: { ocr: 'off' } },
      { kind: 'server', id: 'GitHub' },
    ];
    expect(parseDesiredCapabilities(desired)).toEqual(desired);
  });

  it.each([
    ['not a list', { kind: 'skill', id: 'pdf' }, /^desired states: ✖ [^→]+$/],
    ['a missing id', [{ kind: 'skill' }], /^desired states: ✖ .+ → at \[0\]\.id$/],
    ['an unknown field', [{ kind: 'skill', id: 'pdf', enable: true }], /^desired states: ✖ .+ → at \[0\]$/],
    ['gates that are not a mapping', [{ kind: 'skill', id: 'pdf', gates: ['ocr'] }], /^desired states: ✖ .+ → at \[0\]\.gates$/],
  ])('refuses %s with STATE_INPUT_INVALID', (_what, input, message) => {
    expect(() => parseDesiredCapabilities(input)).toThrow(
      expect.objectContaining({ code: 'STATE_INPUT_INVALID', message: expect.stringMatching(message) }),
    );
  });
});

describe('parseStateScope', () => {
  it('takes a project folder, none, or null', () => {
    expect(parseStateScope({ project: '/work/app' })).toEqual({ project: '/work/app' });
    expect(parseStateScope(undefined)).toEqual({});
    expect(parseStateScope({ project: null })).toEqual({ project: null });
  });

  it('refuses an empty project', () => {
    expect(() => parseStateScope({ project: '' })).toThrow(expect.objectContaining({ code: 'STATE_INPUT_INVALID' }));
  });
});
