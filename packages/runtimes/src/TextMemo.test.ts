import { describe, expect, it } from 'vitest';
import { TextMemo } from './TextMemo.js';

describe('TextMemo', () => {
  it('computes once per text and gives the same result back', () => {
    const seen: string[] = [];
    const memo = new TextMemo((text) => {
      seen.push(text);
      return { length: text.length };
    });
    const first = memo.get('---\nname: a\n---\n');
    expect(memo.get('---\nname: a\n---\n')).toBe(first);
    memo.get('---\nname: b\n---\n');
    expect(seen).toEqual(['---\nname: a\n---\n', '---\nname: b\n---\n']);
  });

  it('does not keep a text over the limit', () => {
    let computed = 0;
    const memo = new TextMemo(() => (computed += 1));
    const long = 'x'.repeat(TextMemo.MAX_TEXT + 1);
    memo.get(long);
    memo.get(long);
    expect(computed).toBe(2);
  });

  it('empties itself when full, so it stays bounded', () => {
    let computed = 0;
    const memo = new TextMemo(() => (computed += 1));
    for (let i = 0; i < TextMemo.MAX_ENTRIES; i += 1) memo.get(`text ${i}`);
    memo.get('one more');
    memo.get('text 0');
    expect(computed).toBe(TextMemo.MAX_ENTRIES + 2);
  });

  it('keeps as many texts as it was made to hold before emptying', () => {
    let computed = 0;
    const memo = new TextMemo(() => (computed += 1), TextMemo.MAX_ENTRIES * 4);
    const names = Array.from({ length: TextMemo.MAX_ENTRIES * 3 }, (_, i) => `skill-${i}`);
    for (const name of names) memo.get(name);
    // A second pass over more names than the default bound computes none of them again.
    for (const name of names) memo.get(name);
    expect(computed).toBe(names.length);
  });
});
