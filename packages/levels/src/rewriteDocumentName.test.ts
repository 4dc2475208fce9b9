import { parseMarkdown } from '@loadout/kernel';
import { describe, expect, it } from 'vitest';
import { rewriteMarkdownName, rewriteJsonName } from './rewriteDocumentName.js';

describe('rewriteMarkdownName', () => {
  const cases: { title: string; before: string; name: string; after: string }[] = [
    {
      title: 'a plain name line, LF',
      before: '---\nname: pdf\ndescription: Read PDFs\n---\nBody\n',
      name: 'pdf (2)',
      after: '---\nname: pdf (2)\ndescription: Read PDFs\n---\nBody\n',
    },
    {
      title: 'CRLF with extra fields, comments, odd spacing and a trailing body without a newline',
      before:
        '---\r\n# owner notes\r\nlicense: MIT\r\nname:    Report Maker\r\ndescription:  "Makes reports"\r\nmetadata:\r\n  team: docs\r\n  tags: [a, b]\r\n---\r\n\r\n# Report\r\nText',
      name: 'Report Maker (2)',
      after:
        '---\r\n# owner notes\r\nlicense: MIT\r\nname:    Report Maker (2)\r\ndescription:  "Makes reports"\r\nmetadata:\r\n  team: docs\r\n  tags: [a, b]\r\n---\r\n\r\n# Report\r\nText',
    },
    {
      title: 'a double-quoted name keeps its quotes',
      before: '---\n"name": "Ünïcode: tool"\ndescription: d\n---\n',
      name: 'Ünïcode: tool (2)',
      after: '---\n"name": "Ünïcode: tool (2)"\ndescription: d\n---\n',
    },
    {
      title: 'a single-quoted name keeps its quotes and doubles an apostrophe',
      before: "---\nname: 'It''s'\n---\nx\n",
      name: "It's (2)",
      after: "---\nname: 'It''s (2)'\n---\nx\n",
    },
    {
      title: 'a plain name that would not read back as plain is double-quoted',
      before: '---\nname: plain\n---\n',
      name: 'a: b # c',
      after: '---\nname: "a: b # c"\n---\n',
    },
    {
      title: 'a Chinese name',
      before: '---\nname: 翻译\ndescription: 翻译文本\n---\n正文\n',
      name: '翻译 (2)',
      after: '---\nname: 翻译 (2)\ndescription: 翻译文本\n---\n正文\n',
    },
    {
      title: 'a folded multi-line name is replaced whole; the blank line after it stays',
      before: '---\nname: >\n  Long\n  Name\n\ndescription: d\n---\nb\n',
      name: 'Long Name (2)',
      after: '---\nname: Long Name (2)\n\ndescription: d\n---\nb\n',
    },
    {
      title: 'a block without a name line gets one first, in its line ending',
      before: '---\r\ndescription: d\r\n---\r\nb\r\n',
      name: 'notes (2)',
      after: '---\r\nname: notes (2)\r\ndescription: d\r\n---\r\nb\r\n',
    },
    {
      title: 'a document without frontmatter gets a fresh block',
      before: '# Notes\n\nJust text.\n',
      name: 'notes (2)',
      after: '---\nname: notes (2)\n---\n# Notes\n\nJust text.\n',
    },
    {
      title: 'a CRLF document without frontmatter gets a CRLF block, after its byte order mark',
      before: '\uFEFF# Notes\r\nText\r\n',
      name: 'notes (2)',
      after: '\uFEFF---\r\nname: notes (2)\r\n---\r\n# Notes\r\nText\r\n',
    },
    {
      title: 'an empty document gets a fresh block',
      before: '',
      name: 'empty (2)',
      after: '---\nname: empty (2)\n---\n',
    },
  ];

  it.each(cases)('$title', ({ before, name, after }) => {
    const rewritten = rewriteMarkdownName(before, name, 'skills/x.md');
    expect(rewritten).toBe(after);
    expect(parseMarkdown(rewritten, 'x').frontmatter.name).toBe(name);
  });

  it('refuses a name it cannot place on one line without changing other fields', () => {
    // The top-level mapping is indented, so no column-0 `name:` exists; inserting one would
    // change the document's shape, and the parse-back check refuses it.
    expect(() => rewriteMarkdownName('---\n  name: x\n  description: d\n---\n', 'x (2)', 'skills/x.md')).toThrow(
      expect.objectContaining({ code: 'TRANSFER_REFUSED' }),
    );
  });
});

describe('rewriteJsonName', () => {
  it.each([
    {
      title: 'replaces only the name literal; indentation and key order stay',
      before: '{\n    "command": "node",\n    "name": "Mine",\n    "args": ["srv.js"]\n}\n',
      after: '{\n    "command": "node",\n    "name": "Mine (2)",\n    "args": ["srv.js"]\n}\n',
      name: 'Mine (2)',
    },
    {
      title: 'leaves a nested "name" alone',
      before: '{"env":{"name":"inner"},"name" : "Outer","url":"https://x.example"}',
      after: '{"env":{"name":"inner"},"name" : "Outer (2)","url":"https://x.example"}',
      name: 'Outer (2)',
    },
    {
      title: 'escapes what JSON needs escaped',
      before: '{ "name": "a\\"b", "url": "https://x.example" }',
      after: '{ "name": "a\\"b (2)\\n", "url": "https://x.example" }',
      name: 'a"b (2)\n',
    },
  ])('$title', ({ before, after, name }) => {
    const rewritten = rewriteJsonName(before, name, 'servers/x.json');
    expect(rewritten).toBe(after);
    expect((JSON.parse(rewritten) as { name: string }).name).toBe(name);
  });
});
