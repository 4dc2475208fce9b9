import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTestdirs, testdir } from './testing/index.js';
import { DocumentRefusedError, findFrontmatter, parseMarkdown, readMarkdownInside, readTextInside } from './DocumentReader.js';

afterEach(removeTestdirs);

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof DocumentRefusedError) return error.code;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('parseMarkdown', () => {
  it('reads YAML frontmatter as data and keeps the body', () => {
    const doc = parseMarkdown('---\nname: pdf\ndescription: Read PDFs\nextra: [1, 2]\n---\n# Body\n', 'SKILL.md');
    expect(doc.frontmatter).toEqual({ name: 'pdf', description: 'Read PDFs', extra: [1, 2] });
    expect(doc.body).toBe('# Body\n');
    expect(doc.hasFrontmatter).toBe(true);
  });

  it('handles CRLF documents', () => {
    const doc = parseMarkdown('---\r\nname: pdf\r\n---\r\nbody\r\n', 'SKILL.md');
    expect(doc.frontmatter).toEqual({ name: 'pdf' });
    expect(doc.body).toBe('body\r\n');
  });

  it('treats a document without a block as all body', () => {
    expect(parseMarkdown('# Just text\n', 'a.md')).toEqual({ frontmatter: {}, hasFrontmatter: false, body: '# Just text\n' });
  });

  it.each(['---js', '---javascript', '--- js', '---coffee'])('refuses a %s block and never runs it', (fence) => {
    const marker = `globalThis.__loadoutRan = true`;
    const text = `${fence}\n{ name: (function(){ ${marker}; return 'x' })() }\n---\nbody\n`;
    expect(refusal(() => parseMarkdown(text, 'evil.md'))).toBe('FRONTMATTER_ENGINE_REFUSED');
    expect((globalThis as Record<string, unknown>).__loadoutRan).toBeUndefined();
  });

  it('does not construct JavaScript types from YAML tags', () => {
    const text = '---\nname: !!js/function "function(){ return 1 }"\n---\n';
    expect(refusal(() => parseMarkdown(text, 'tag.md'))).toBe('FRONTMATTER_MALFORMED');
  });

  it('refuses malformed YAML with the file name in the message', () => {
    expect(() => parseMarkdown('---\nname: [unclosed\n---\n', 'skills/bad/SKILL.md')).toThrow(/skills\/bad\/SKILL.md/);
  });

  it('refuses an unclosed block, but reads a leading thematic break as body', () => {
    expect(refusal(() => parseMarkdown('---\nname: a\n\nbody without a closing fence\n', 'open.md'))).toBe('FRONTMATTER_UNCLOSED');
    expect(parseMarkdown('----\nname: a\n', 'rule.md')).toMatchObject({ hasFrontmatter: false });
  });

  it('refuses frontmatter that is not a mapping', () => {
    expect(refusal(() => parseMarkdown('---\n- a\n- b\n---\n', 'list.md'))).toBe('FRONTMATTER_MALFORMED');
  });

  it('refuses an alias bomb quickly', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    const names = 'bcdefghijk'.split('');
    let previous = 'a';
    for (const name of names) {
      lines.push(`${name}: &${name} [*${previous},*${previous},*${previous},*${previous},*${previous},*${previous},*${previous},*${previous},*${previous}]`);
      previous = name;
    }
    const text = `---\nname: bomb\n${lines.join('\n')}\n---\n`;
    const started = performance.now();
    expect(refusal(() => parseMarkdown(text, 'bomb.md'))).toBe('FRONTMATTER_TOO_COMPLEX');
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses oversized frontmatter', () => {
    const text = `---\nname: big\npad: "${'x'.repeat(70 * 1024)}"\n---\n`;
    expect(refusal(() => parseMarkdown(text, 'big.md'))).toBe('FRONTMATTER_TOO_LARGE');
  });
});

describe('findFrontmatter', () => {
  it('gives the offsets a rewrite needs', () => {
    const text = '---\nname: a\n---\nbody';
    const block = findFrontmatter(text);
    expect(block).not.toBeNull();
    expect(text.slice(block!.yamlStart, block!.yamlStart + block!.yaml.length)).toBe('name: a\n');
    expect(text.slice(block!.bodyStart)).toBe('body');
  });

  it('is null for a thematic break or an unclosed block', () => {
    expect(findFrontmatter('----\ntext\n')).toBeNull();
    expect(findFrontmatter('---\nname: a\n')).toBeNull();
  });
});

describe('reading inside a root', () => {
  it('follows a link that stays inside the root', () => {
    const dir = testdir({ root: { 'real.md': '---\nname: real\n---\n' } });
    fs.symlinkSync(path.join(dir, 'root/real.md'), path.join(dir, 'root/link.md'));
    expect(readMarkdownInside(path.join(dir, 'root'), path.join(dir, 'root/link.md'))?.frontmatter).toEqual({ name: 'real' });
  });

  it('refuses a link that leads outside the root and reads nothing there', () => {
    const dir = testdir({ secret: 'password=hunter2', root: {} });
    fs.symlinkSync(path.join(dir, 'secret'), path.join(dir, 'root/leak.md'));
    expect(refusal(() => readTextInside(path.join(dir, 'root'), path.join(dir, 'root/leak.md')))).toBe('PATH_OUTSIDE_ROOT');
  });

  it('returns null for a missing file and refuses one over 1 MiB', () => {
    const dir = testdir({ 'big.md': 'x'.repeat(1024 * 1024 + 1) });
    expect(readTextInside(dir, path.join(dir, 'missing.md'))).toBeNull();
    expect(refusal(() => readTextInside(dir, path.join(dir, 'big.md')))).toBe('DOCUMENT_TOO_LARGE');
  });
});
