import fc from 'fast-check';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { parseMarkdown } from './DocumentReader.js';
import { DocumentRefusedError } from '@loadout/files';
import { parseFlatMapping } from './parseFlatMapping.js';

/** What js-yaml makes of `text` under the schema frontmatter is read with: its value or its error. */
function jsYaml(text: string, filename?: string): { value: unknown } | { error: Error } {
  try {
    return { value: yaml.load(text, { schema: yaml.CORE_SCHEMA, ...(filename === undefined ? {} : { filename }) }) };
  } catch (error) {
    return { error: error as Error };
  }
}

/**
 * The property every accepted text must keep: js-yaml reads it without error to an equal value —
 * at every depth the same prototype, the same keys in the same order (the same length for a
 * list), and each scalar the same by `Object.is` (`-0` is not `0`, NaN is NaN, 1 is not "1").
 */
function expectSameAsJsYaml(text: string): boolean {
  const fast = parseFlatMapping(text);
  if (fast === null) return false;
  const reference = jsYaml(text);
  if ('error' in reference) throw new Error(`accepted ${JSON.stringify(text)}, which js-yaml refuses: ${reference.error.message}`);
  expectSameValue(text, fast, reference.value, 'the frontmatter');
  return true;
}

function expectSameValue(text: string, fast: unknown, expected: unknown, where: string): void {
  if (fast === null || typeof fast !== 'object' || expected === null || typeof expected !== 'object') {
    if (!Object.is(fast, expected))
      throw new Error(`${JSON.stringify(text)}: ${where} is ${String(fast)}, js-yaml says ${String(expected)}`);
    return;
  }
  expect(Object.getPrototypeOf(fast), where).toBe(Object.getPrototypeOf(expected));
  expect(Object.keys(fast), where).toEqual(Object.keys(expected));
  for (const key of Object.keys(expected)) {
    expectSameValue(text, (fast as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key], `${where}.${key}`);
  }
}

const numbers = [
  '0',
  '7',
  '-7',
  '+7',
  '007',
  '08',
  '0o17',
  '0O17',
  '0o',
  '0o8',
  '0x1F',
  '0X1f',
  '0x',
  '0xG',
  '0x_1F',
  '0b101',
  '0b',
  '0b2',
  '1_000',
  '1__0',
  '1_',
  '_1',
  '1.5',
  '-1.5',
  '+1.5',
  '1.',
  '0.',
  '.5',
  '-.5',
  '+.5',
  '.',
  '1e3',
  '1E3',
  '1e+3',
  '1E-3',
  '1.5e3',
  '-1.5E+3',
  '1e',
  'e3',
  '6.8523015e+5',
  '685.230_15e+03',
  '.inf',
  '.Inf',
  '.INF',
  '-.inf',
  '+.inf',
  '.iNF',
  'inf',
  '.nan',
  '.NaN',
  '.NAN',
  '-.nan',
  'nan',
  '-0',
  '+0',
  '-0.0',
  '0.0',
  '190:20:30',
  '1,000',
  '9007199254740993',
  '1e400',
  '-',
  '+',
  '0x7fffffffffffffff',
];
const words = [
  'true',
  'True',
  'TRUE',
  'tRUE',
  'false',
  'False',
  'FALSE',
  'fAlse',
  'null',
  'Null',
  'NULL',
  'nULL',
  '~',
  '~~',
  'yes',
  'Yes',
  'no',
  'No',
  'on',
  'On',
  'off',
  'y',
  'n',
  'Y',
  '2024-01-01',
  '2001-12-14t21:59:43.10-05:00',
  '2002-12-14 21:59:43.10 -5',
  'word',
  'pdf',
  'plugin-000-skill-000',
  '<<',
  '=',
  'Benchmark skill 1 of plugin-000; does nothing but take up room.',
  'constructor',
  'toString',
  '__proto__',
  'hasOwnProperty',
];
const indicators = [
  '- a',
  '-a',
  '--',
  '---',
  '--- a',
  '...',
  '? a',
  '?a',
  ': a',
  ':a',
  ':',
  ',a',
  ',',
  '[a]',
  '[',
  ']',
  '{a: 1}',
  '{',
  '}',
  '#c',
  '# c',
  '&x a',
  '&x',
  '*x',
  '!t a',
  '!!str 1',
  '!!int "3"',
  '!!js/function f',
  '|',
  '|-',
  '>',
  '>+',
  '%x',
  '%YAML 1.2',
  '@x',
  '`x`',
  '\\',
];
const inner = [
  'a: b',
  'a:b',
  'a:',
  'a :b',
  'a #c',
  'a#c',
  'a # c',
  'http://x.y/z?q=1#f',
  'a - b',
  'a, b',
  '[x] y',
  'x {y}',
  'a ? b',
  'a | b',
  'a > b',
  'a & b',
  'a * b',
  'a ! b',
  'a % b',
  'a @ b',
  'a ` b',
  "a ' b",
  'a " b',
  "it's",
  'say "hi"',
  'a\\b',
  'C:\\dir',
  ' ',
  '  ',
  '\t',
  'a\tb',
];
const quoted = [
  "'a'",
  "''",
  "'it''s'",
  "''''",
  "'a''",
  "'unclosed",
  "'a' b",
  "'a' ",
  "'a' #c",
  "'a'#c",
  "'a':",
  "'a\\nb'",
  "'\"'",
  "' lead'",
  "'trail '",
  '"a"',
  '""',
  '"a\\"b"',
  '"\\n"',
  '"\\t"',
  '"\\x41"',
  '"\\u00e9"',
  '"\\U0001F600"',
  '"\\\\"',
  '"\\q"',
  '"a" b',
  '"a" ',
  '"a" #c',
  '"unclosed',
  '"\'"',
  '"a # b"',
  "'a: b'",
  '"a: b"',
  "'#'",
  "'",
  '"',
];
const unicode = [
  'é',
  'ünïcödé',
  '日本語',
  '😀',
  'a😀b',
  '\u00a0',
  'a\u00a0',
  '\u2028',
  '\u2029',
  '\u0085',
  '\ufeff',
  '\ufffe',
  '\ud800',
  '\udc00',
  '\ud83d',
  'Ⅻ',
  '١٢٣',
  'ǅ',
];
const controls = ['\x00', '\x01', '\x07', '\x08', '\x0b', '\x0c', '\x1b', '\x1f', '\x7f', '\x80', '\x9f', '\r', '\r\r'];

const fragment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...numbers, ...words) },
  { weight: 3, arbitrary: fc.constantFrom(...indicators, ...inner) },
  { weight: 2, arbitrary: fc.constantFrom(...quoted) },
  { weight: 1, arbitrary: fc.constantFrom(...unicode, ...controls) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 3 }) },
);
const value = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...numbers, ...words, ...quoted) },
  { weight: 3, arbitrary: fc.array(fragment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('')) },
  { weight: 2, arbitrary: fc.array(fragment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(' ')) },
  { weight: 1, arbitrary: fc.constant('') },
);
const key = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom('name', 'description', 'license', 'allowed-tools', 'user_invocable', 'x-y_z', '_', 'A', 'a1', 'metadata'),
  },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,8}$/) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'true',
      'True',
      'TRUE',
      'false',
      'null',
      'Null',
      'NULL',
      'yes',
      'on',
      'y',
      'inf',
      'nan',
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      '~',
      '1',
      '0x1',
      '.5',
      '-k',
      '?k',
      '? k',
      'k k',
      '"k"',
      "'k'",
      'k ',
      ' k',
      '  k',
      'a.b',
      '<<',
      'é',
      'k:x',
      'k#',
      '#k',
      '&a k',
      '*a',
      '!t k',
      '[k]',
      '{k}',
    ),
  },
);
const separator = fc.constantFrom(' ', ' ', ' ', '  ', '', '\t', ' \t');
const trailing = fc.constantFrom('', '', '', ' ', '  ', ' # note', '#x', '\t', ' \t');
const entryLine = fc.tuple(key, separator, value, trailing).map(([k, sep, v, end]) => `${k}:${sep}${v}${end}`);
const otherLine = fc.constantFrom(
  '',
  '   ',
  '\t',
  '# a comment',
  '  # indented comment',
  '  x: 1',
  '  - a',
  '- a',
  ' continued text',
  'continued text',
  'k: |',
  'k: >-',
  '  block text',
  'k: [a, b]',
  'k: {a: 1}',
  'meta:',
  '  version: 1.0',
  '  tags: [x, y]',
  'a: &x 1',
  'b: *x',
  '<<: *x',
  '? complex',
  ': value',
  '---',
  '...',
  '--- a',
  '%YAML 1.2',
  '!!map',
  'k: !!str 1',
  'k: "multi',
  '  line"',
  "k: 'multi",
  "  line'",
  'k:\tv',
  'k :v',
  'k : v',
  'k::v',
  '"q": 1',
  "'q': 1",
  'k: v: w',
);
const line = fc.oneof(
  { weight: 6, arbitrary: entryLine },
  { weight: 2, arbitrary: otherLine },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);
const document = fc
  .tuple(fc.array(line, { minLength: 0, maxLength: 7 }), fc.constantFrom('\n', '\n', '\r\n'), fc.constantFrom('', '\n', '\r\n', '\n\n'))
  .map(([lines, eol, end]) => lines.join(eol) + end);
/** Texts in the common shape: mostly accepted, so the property is not carried by rejections alone. */
const flatDocument = fc
  .tuple(fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 6 }), fc.constantFrom('\n', '\r\n'))
  .map(([entries, eol]) => entries.map(([k, v]) => `${k}: ${v}`).join(eol) + eol);

/** A flow list of words, some typed, some near a rule's edge. */
const flowItem = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      ...numbers,
      ...words,
      'bench',
      'generated',
      'a b',
      'a  b',
      'x-y',
      'a.b',
      'v1.0.5',
      'a?b',
      'a!b',
      'a&b',
      'a*b',
      'a|b',
      'a>b',
      'a%b',
      'a@b',
      'a`b',
      'a/b',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      ...indicators,
      ...inner,
      ...quoted,
      '',
      ' ',
      'a,b',
      'a]',
      '[a',
      '{a}',
      'a:b',
      'a: b',
      'a#b',
      'a #b',
      'é',
      '\t',
      'a\tb',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }) },
);
const flowList = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom('', ' ', '  '), flowItem, fc.constantFrom('', ' ')), { minLength: 0, maxLength: 4 }),
    fc.constantFrom(', ', ',', ' , ', ',  '),
    fc.constantFrom('', ' ', ','),
  )
  .map(
    ([items, comma, last]) =>
      `[${items.map(([before, item, after]) => `${before}${item}${after}`).join(comma)}${items.length > 0 ? last : ''}]`,
  );
const nestedValue = fc.oneof({ weight: 3, arbitrary: value }, { weight: 2, arbitrary: flowList });
const indent = fc.constantFrom('  ', '  ', '    ', ' ', '\t', '   ');
/** A key with a block of indented entries under it, mostly evenly indented, sometimes not. */
const nestedBlock = fc
  .tuple(
    key,
    fc.constantFrom('', '', ' ', ' # c', ' x', ' ~'),
    indent,
    fc.array(fc.tuple(fc.constantFrom('', '', '', '', ' ', '  ', '\t'), key, nestedValue), { minLength: 1, maxLength: 4 }),
  )
  .map(([k, after, pad, entries]) => [`${k}:${after}`, ...entries.map(([extra, nk, v]) => `${pad}${extra}${nk}: ${v}`)].join('\n'));
const nestedLine = fc.oneof(
  { weight: 4, arbitrary: entryLine },
  { weight: 2, arbitrary: fc.tuple(key, flowList, trailing).map(([k, list, end]) => `${k}: ${list}${end}`) },
  { weight: 3, arbitrary: nestedBlock },
  { weight: 1, arbitrary: otherLine },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '  ',
      '\n',
      '  # note',
      '    deeper: 1',
      '  - item',
      'k: [a,\n  b]',
      'k: [[a]]',
      'k: [a, [b]]',
      'k: []',
      'k: [ ]',
      'k: [,]',
      'k: [a,,b]',
    ),
  },
);
const nestedDocument = fc
  .tuple(fc.array(nestedLine, { minLength: 1, maxLength: 6 }), fc.constantFrom('\n', '\n', '\r\n'), fc.constantFrom('', '\n', '\r\n'))
  .map(([lines, eol, end]) => lines.join('\n').split('\n').join(eol) + end);
/** Nested texts in the shape the reader takes, so most are accepted. */
const nestedShape = fc
  .tuple(
    fc.array(
      fc.oneof(
        fc.tuple(key, value).map(([k, v]) => `${k}: ${v}`),
        fc.tuple(key, flowList).map(([k, list]) => `${k}: ${list}`),
        fc
          .tuple(key, fc.constantFrom('  ', '    '), fc.array(fc.tuple(key, nestedValue), { minLength: 1, maxLength: 3 }))
          .map(([k, pad, entries]) => [`${k}:`, ...entries.map(([nk, v]) => `${pad}${nk}: ${v}`)].join('\n')),
      ),
      { minLength: 1, maxLength: 5 },
    ),
    fc.constantFrom('\n', '\r\n'),
  )
  .map(([lines, eol]) => lines.join('\n').split('\n').join(eol) + eol);

describe('parseFlatMapping', () => {
  it('reads the common shape of a SKILL.md frontmatter itself', () => {
    const text =
      'name: pdf-tools\ndescription: Reads PDFs (text, tables, forms); use it when a PDF is named, e.g. report.pdf.\nlicense: MIT\n';
    expect(parseFlatMapping(text)).toEqual({
      name: 'pdf-tools',
      description: 'Reads PDFs (text, tables, forms); use it when a PDF is named, e.g. report.pdf.',
      license: 'MIT',
    });
    expect(parseFlatMapping("name: 'it''s'\ndescription: \"quoted: #1\"\nversion: 1.0\nhidden: true\nempty:\n")).toEqual({
      name: "it's",
      description: 'quoted: #1',
      version: 1,
      hidden: true,
      empty: null,
    });
  });

  it('leaves every other shape to js-yaml', () => {
    for (const text of [
      'metadata:\n  version: 1\n  deeper:\n    x: 1\n',
      'tags: [a, [b]]\n',
      "tags: ['a']\n",
      'tags: [a, ]\n',
      'tags: {a: 1}\n',
      'a: x\n  b: 1\n',
      '  a: 1\n',
      'a:\n  b: 1\n   c: 2\n',
      'a:\n  - b\n',
      'a:\n  # c\n  b: 1\n',
      'a: &x 1\nb: *x\n',
      'a: !!str 1\n',
      'a: |\n  text\n',
      '# comment\na: 1\n',
      'a: 1 # note\n',
      'a: 1\na: 2\n',
      'true: x\n',
      '__proto__: x\n',
      'a:\tb\n',
      'a: "\\n"\n',
      "a: 'two\n  lines'\n",
      'a: b: c\n',
      'a: b:\n',
      '',
      '\n\n',
      'a: x\u0085y\n',
      'a: x\ud800\n',
      'a: -1\n',
    ]) {
      expect(parseFlatMapping(text), JSON.stringify(text)).toBeNull();
    }
  });

  // Texts where an earlier version of the fast reader and js-yaml once disagreed, and the rules
  // they pin down; each must still be either left to js-yaml or read exactly as js-yaml reads it.
  it.each([
    'a: 1_000\n', // js-yaml 4.3 reads underscores in numbers as a string
    'a: 0o17\nb: 0x1F\nc: 0b101\n',
    'a: .inf\nb: .NaN\nc: +.INF\n',
    'a: +0\nb: 0.\nc: 1e3\n',
    'a: Null\nb: NULL\nc: nULL\nd: ~\ne: yes\nf: On\n',
    'a: 2024-01-01\n',
    'a: http://x.y/z#f\n',
    'a: b #c\n',
    'a: b#c\n',
    'a: x :y\n',
    "a: 'b' \n",
    "a: ''\n",
    'a: ""\n',
    'a: \u00a0\n',
    'a: x\u00a0\n',
    'a: \u2028\n',
    'a: \ufeffx\n',
    'a: 😀\n',
    'a: b\r\nc: d\r\n',
    'a: b\rc: d\n',
    'a: b\n   \nc: d',
    'a: b\ncontinued\n',
    'True: x\n',
    'constructor: x\ntoString: y\n',
    'metadata:\n  version: 1.0.5\n  tags: [bench, generated]\n',
    'a:\n  b: 1\n\n  c: [1, .5, ~, true, 0x1F, 1_000]\nd: []\n',
    'a:\n  b:\n  c: x\nb:\n',
    'tags: [ a b ,c  ]\n',
    'a:\r\n  b: 1\r\n',
  ])('agrees with js-yaml on %j', (text) => {
    expectSameAsJsYaml(text);
  });

  // Each generator must reach the fast reader often enough for the property to say something.
  it.each([
    ['front matter of every shape', document, 40],
    ['flat mappings', flatDocument, 400],
    ['front matter with nested mappings and flow lists', nestedDocument, 60],
    ['nested mappings and flow lists', nestedShape, 200],
  ] as const)('reads what js-yaml reads, or leaves the text to it (generated %s)', (_, texts, leastAccepted) => {
    let accepted = 0;
    fc.assert(
      fc.property(texts, (text) => {
        if (expectSameAsJsYaml(text)) accepted += 1;
      }),
      { numRuns: 4000 },
    );
    expect(accepted).toBeGreaterThan(leastAccepted);
  });

  it('gives parseMarkdown the frontmatter or the refusal js-yaml alone gives it', () => {
    fc.assert(
      fc.property(fc.oneof(document, nestedDocument), (yamlText) => {
        // A line that is a fence would end the block early: that is findFrontmatter's business.
        fc.pre(!/^(---|\.\.\.)\r?$/m.test(yamlText));
        const block = yamlText.endsWith('\n') ? yamlText : `${yamlText}\n`;
        const reference = jsYaml(block, 'SKILL.md');
        const text = `---\n${block}---\nbody\n`;
        let read: Readonly<Record<string, unknown>> | DocumentRefusedError;
        try {
          read = parseMarkdown(text, 'SKILL.md').frontmatter;
        } catch (error) {
          if (!(error instanceof DocumentRefusedError)) throw error;
          read = error;
        }
        if ('error' in reference) {
          expect(read).toBeInstanceOf(DocumentRefusedError);
          expect((read as DocumentRefusedError).message).toContain(reference.error.message.split('\n')[0]);
          return;
        }
        const value = reference.value ?? {};
        if (typeof value !== 'object' || Array.isArray(value)) expect((read as DocumentRefusedError).code).toBe('FRONTMATTER_MALFORMED');
        else if (read instanceof DocumentRefusedError) expect(read.code).toBe('FRONTMATTER_TOO_COMPLEX');
        // toEqual, not toStrictEqual: a key named `constructor` fools the latter's type check.
        else expect(read).toEqual(value);
      }),
      { numRuns: 3000 },
    );
  });
});
