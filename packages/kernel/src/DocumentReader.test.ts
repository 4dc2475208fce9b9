import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { findFrontmatter, parseMarkdown, readFrontmatterInside, readMarkdownInside, readTextInside } from './DocumentReader.js';
import { DocumentRefusedError } from '@loadout/files';
import { DocumentReads } from './DocumentReads.js';

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
      lines.push(
        `${name}: &${name} [*${previous},*${previous},*${previous},*${previous},*${previous},*${previous},*${previous},*${previous},*${previous}]`,
      );
      previous = name;
    }
    const text = `---\nname: bomb\n${lines.join('\n')}\n---\n`;
    const started = performance.now();
    expect(refusal(() => parseMarkdown(text, 'bomb.md'))).toBe('FRONTMATTER_TOO_COMPLEX');
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('counts every value and every level, flat or nested, against the bounds', () => {
    const keys = (count: number): string => Array.from({ length: count }, (_, i) => `k${i.toString(36)}:`).join('\n');
    expect(parseMarkdown(`---\n${keys(9_999)}\n---\n`, 'many.md').frontmatter).toHaveProperty((9_998).toString(36).replace(/^/, 'k'), null);
    expect(refusal(() => parseMarkdown(`---\n${keys(10_000)}\n---\n`, 'too-many.md'))).toBe('FRONTMATTER_TOO_COMPLEX');
    const list = (count: number): string => `meta:\n  a: [${'1,'.repeat(count - 1)}1]`;
    expect(parseMarkdown(`---\n${list(9_997)}\n---\n`, 'list.md').hasFrontmatter).toBe(true);
    expect(refusal(() => parseMarkdown(`---\n${list(9_998)}\n---\n`, 'long-list.md'))).toBe('FRONTMATTER_TOO_COMPLEX');
    const deep = (levels: number): string => `a: ${'['.repeat(levels)}1${']'.repeat(levels)}`;
    expect(parseMarkdown(`---\n${deep(63)}\n---\n`, 'deep.md').hasFrontmatter).toBe(true);
    expect(refusal(() => parseMarkdown(`---\n${deep(64)}\n---\n`, 'too-deep.md'))).toBe('FRONTMATTER_TOO_COMPLEX');
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

describe('readFrontmatterInside', () => {
  /** What a reading gives, in a form two readings can be compared by: the frontmatter, or the refusal. */
  const outcome = (read: () => { frontmatter: unknown; hasFrontmatter: boolean } | null): unknown => {
    try {
      const document = read();
      return document === null ? null : { frontmatter: document.frontmatter, hasFrontmatter: document.hasFrontmatter };
    } catch (error) {
      if (error instanceof DocumentRefusedError) return { code: error.code, message: error.message };
      throw error;
    }
  };

  const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
  const part = (text: string): Buffer => Buffer.from(text, 'utf8');
  const piece = fc.oneof(
    fc.constantFrom(
      ...[
        '---',
        '---yaml',
        '--- ',
        '---js',
        '----',
        '...',
        ' ---',
        '--- x',
        '---\r',
        '...\r',
        '---\r\r',
        'name: a',
        'description: "b"',
        'x: [1, 2]',
        'a: b: c',
        '# body',
        '',
        'é',
        '😀',
        '---x',
      ].map(part),
      BOM,
      Buffer.from([0xff]),
      Buffer.from([0xe2, 0x82]), // a character cut short
      Buffer.from([0xc3]),
    ),
    fc.string({ maxLength: 8 }).map(part),
  );
  const line = fc.array(piece, { maxLength: 3 }).map((pieces) => Buffer.concat(pieces));
  const yamlLine = fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .constantFrom('name: a', 'description: "b c"', 'x: [1, 2]', 'meta:', '  k: v', 'a: b: c', '', "q: 'it''s'", 'é: 😀')
        .map(part),
    },
    { weight: 1, arbitrary: line },
  );
  /** A document laid out as fence, YAML, closing fence and body, each part free to be wrong. */
  const shaped = fc
    .record({
      bom: fc.boolean(),
      fence: fc.constantFrom('---', '---', '---', '---yaml', '--- ', '---js', '----', '...', '', '# title'),
      yaml: fc.array(yamlLine, { maxLength: 5 }),
      closing: fc.option(fc.constantFrom('---', '---', '...', '---\r', '--- ', ' ---', '----'), { nil: undefined }),
      body: fc.array(line, { maxLength: 4 }),
      eol: fc.constantFrom('\n', '\r\n'),
      lastNewline: fc.boolean(),
    })
    .map(({ bom, fence, yaml, closing, body, eol, lastNewline }) => {
      const lines = [part(fence), ...yaml, ...(closing === undefined ? [] : [part(closing)]), ...body];
      const joined = lines.flatMap((one, index) => (index < lines.length - 1 || lastNewline ? [one, part(eol)] : [one]));
      return Buffer.concat([...(bom ? [BOM] : []), ...joined]);
    });
  const document = fc.oneof(
    { weight: 3, arbitrary: shaped },
    { weight: 1, arbitrary: fc.array(line, { maxLength: 8 }).map((lines) => Buffer.concat(lines.flatMap((one) => [one, part('\n')]))) },
  );

  it('reads what readMarkdownInside reads, from real files of every shape', () => {
    const dir = testdir({});
    let index = 0;
    fc.assert(
      fc.property(document, (bytes) => {
        const file = path.join(dir, `doc-${(index += 1)}.md`);
        fs.writeFileSync(file, bytes);
        const relative = path.basename(file);
        expect(outcome(() => readFrontmatterInside(dir, file, relative))).toEqual(outcome(() => readMarkdownInside(dir, file)));
      }),
      { numRuns: 1500 },
    );
  });

  it('keeps, when asked, the whole text with the frontmatter parseMarkdown reads from it, and nothing of a refused document', () => {
    const dir = testdir({});
    let index = 0;
    fc.assert(
      fc.property(document, (bytes) => {
        const file = path.join(dir, `kept-${(index += 1)}.md`);
        fs.writeFileSync(file, bytes);
        const keep = new DocumentReads();
        const read = outcome(() => readFrontmatterInside(dir, file, path.basename(file), keep));
        const kept = keep.get(file);
        if (read !== null && typeof read === 'object' && 'code' in read) {
          expect(kept).toBeUndefined();
          return;
        }
        const text = bytes.toString('utf8');
        const parsed = parseMarkdown(text, path.basename(file));
        expect(kept?.text).toBe(text);
        expect(kept?.frontmatter).toEqual(parsed.hasFrontmatter ? parsed.frontmatter : null);
        expect(kept?.stats.ino).toBe(fs.statSync(file).ino);
      }),
      { numRuns: 800 },
    );
  });

  it('reads the block when the body is long, and refuses what readMarkdownInside refuses', () => {
    const dir = testdir({
      'long.md': `---\nname: long\n---\n${'body '.repeat(100_000)}`,
      'unclosed.md': '---\nname: open\nno closing fence\n',
      'js.md': '---js\n{ name: 1 }\n---\n',
      'bom.md': '\uFEFF---\r\nname: bom\r\n...\r\nbody',
      'plain.md': '# no frontmatter\n---\nname: not-read\n---\n',
    });
    expect(readFrontmatterInside(dir, path.join(dir, 'long.md'), 'long.md')).toEqual({
      frontmatter: { name: 'long' },
      hasFrontmatter: true,
    });
    expect(refusal(() => readFrontmatterInside(dir, path.join(dir, 'unclosed.md'), 'unclosed.md'))).toBe('FRONTMATTER_UNCLOSED');
    expect(refusal(() => readFrontmatterInside(dir, path.join(dir, 'js.md'), 'js.md'))).toBe('FRONTMATTER_ENGINE_REFUSED');
    expect(readFrontmatterInside(dir, path.join(dir, 'bom.md'), 'bom.md')).toEqual({ frontmatter: { name: 'bom' }, hasFrontmatter: true });
    expect(readFrontmatterInside(dir, path.join(dir, 'plain.md'), 'plain.md')).toEqual({ frontmatter: {}, hasFrontmatter: false });
    expect(readFrontmatterInside(dir, path.join(dir, 'missing.md'), 'missing.md')).toBeNull();
  });

  it('keeps the reading rules: no link out of the root, no FIFO', () => {
    const dir = testdir({ secret: '---\nname: secret\n---\n', root: {} });
    fs.symlinkSync(path.join(dir, 'secret'), path.join(dir, 'root/leak.md'));
    expect(refusal(() => readFrontmatterInside(path.join(dir, 'root'), path.join(dir, 'root/leak.md'), 'leak.md'))).toBe(
      'PATH_OUTSIDE_ROOT',
    );
    execFileSync('mkfifo', [path.join(dir, 'root/fifo.md')]);
    expect(refusal(() => readFrontmatterInside(path.join(dir, 'root'), path.join(dir, 'root/fifo.md'), 'fifo.md'))).toBe('NOT_A_FILE');
  });
});
