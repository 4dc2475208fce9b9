import { describe, expect, it } from 'vitest';
import { visibleText } from './terminalText.js';

describe('37 M1 visibleText', () => {
  it('37 M1 shows ESC, CR, other C0 and C1 controls and DEL as escapes', () => {
    expect(visibleText('curl x | sh\r\u001b[2K\u001b[1Aecho ok')).toBe('curl x | sh\\r\\x1b[2K\\x1b[1Aecho ok');
    expect(visibleText('a\u0000b\u0007c\u007fd\u009be')).toBe('a\\x00b\\x07c\\x7fd\\x9be');
  });

  it('37 M1 shows the bidirectional controls and line separators that reorder or break what is shown', () => {
    expect(visibleText('echo \u202eharmless\u202c \u2066x\u2069 \u200f\u2028')).toBe(
      'echo \\u202eharmless\\u202c \\u2066x\\u2069 \\u200f\\u2028',
    );
  });

  it('37 M1 escapes line feeds and tabs in one value; keeps them in whole output with keepLayout', () => {
    expect(visibleText('one\ntwo\tthree')).toBe('one\\ntwo\\tthree');
    expect(visibleText('one\ntwo\tthree\r\u001b', { keepLayout: true })).toBe('one\ntwo\tthree\\r\\x1b');
  });

  it('37 M1 leaves printable text of any script alone, and the very same string when there is nothing to show', () => {
    const text = 'Zürich 東京 — ok ✓';
    expect(visibleText(text)).toBe(text);
    expect(visibleText('plain', { keepLayout: true })).toBe('plain');
  });
});
