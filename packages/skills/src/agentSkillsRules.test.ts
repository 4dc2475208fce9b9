import { parseFlatMapping } from '@loadout/kernel';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import {
  agentSkillFolderProblems,
  agentSkillFolderBreaks,
  agentSkillName,
  agentSkillNameProblems,
  checkAgentSkillsRules,
  validatorFields,
} from './agentSkillsRules.js';

const skillFile = (name: string, more = 'description: Does one thing.\n'): string => `---\nname: ${name}\n${more}---\nBody.\n`;

describe('agentSkillNameProblems (the reference validator’s rule)', () => {
  it.each([
    ['pdf', true],
    ['café-skill', true],
    ['日本語', true],
    ['привет-мир', true],
    ['a'.repeat(64), true],
    ['123', true],
    ['ｆｕｌｌ', true], // NFKC folds fullwidth letters to ASCII
    ['UpperCase', false],
    ['upper-DIR-lower', false],
    ['ひらがな', false], // kana is outside the letters the npm validator accepts
    ['ελληνικά', false],
    ['a×b', false], // the npm port's range includes ×, the Python reference does not: refused by both rules together
    ['under_score', false],
    ['with space', false],
    ['dbl--hyph', false],
    ['-lead', false],
    ['trail-', false],
    ['b'.repeat(65), false],
    ['', false],
  ])('%j is valid: %s', (name, valid) => {
    expect(agentSkillNameProblems(name).length === 0).toBe(valid);
  });

  it('a name that is not a text is refused', () => {
    expect(agentSkillNameProblems(123)).toEqual(['name is missing or not a text']);
    expect(agentSkillNameProblems(undefined)).toEqual(['name is missing or not a text']);
  });

  it('the runtime folder name is the NFKC form of the trimmed name', () => {
    expect(agentSkillName(' cafe\u0301-skill ')).toBe('café-skill');
    expect(agentSkillName('Loud Skill')).toBeNull();
  });
});

describe('agentSkillFolderProblems (skills-ref validate, as a function of SKILL.md and the folder name)', () => {
  it.each([
    ['a valid skill', skillFile('pdf'), 'pdf', []],
    ['a Unicode name in its own folder', skillFile('café-skill'), 'café-skill', []],
    ['an NFD folder for an NFC name', skillFile('café-skill'), 'cafe\u0301-skill', []],
    [
      'the allowed optional fields',
      skillFile('pdf', 'description: x\nlicense: MIT\ncompatibility: any\nallowed-tools: Read\nmetadata:\n  a: 1\n'),
      'pdf',
      [],
    ],
    ['a folder that is not the name', skillFile('name-b'), 'folder-a', ['the folder name must equal the name']],
    ['no description', skillFile('nodesc', ''), 'nodesc', ['description is missing or empty']],
    ['an empty description', skillFile('e', 'description: ""\n'), 'e', ['description is missing or empty']],
    ['a description over 1024', skillFile('d', `description: ${'x'.repeat(1025)}\n`), 'd', ['description is longer than 1024 characters']],
    ['no frontmatter', '# Heading\n', 'nofm', ['SKILL.md must start with a frontmatter block (---), with nothing before it']],
    [
      'a byte order mark before ---',
      `\uFEFF${skillFile('bom')}`,
      'bom',
      ['SKILL.md must start with a frontmatter block (---), with nothing before it'],
    ],
    ['an unclosed block', '---\nname: x\n', 'x', ['the frontmatter block is never closed with ---']],
    [
      'a field outside the spec',
      skillFile('extra', 'description: x\nversion: 1\n'),
      'extra',
      [expect.stringContaining('fields version are not Agent Skills fields')],
    ],
    [
      "Loadout's own gates field",
      skillFile('g', 'description: x\ngates:\n  beta: false\n'),
      'g',
      [expect.stringContaining('fields gates are not')],
    ],
    [
      'a long compatibility',
      skillFile('c', `description: x\ncompatibility: ${'y'.repeat(501)}\n`),
      'c',
      ['compatibility must be a text of at most 500 characters'],
    ],
    ['an upper-case name', skillFile('UpperCase'), 'UpperCase', ['name must be lower-case']],
    ['a name YAML reads as a number', skillFile('123'), '123', ['name is missing or not a text']],
    ['a name YAML reads as a date', skillFile('2024-01-01'), '2024-01-01', ['name is missing or not a text']],
  ])('%s', (_title, text, folder, problems) => {
    expect(agentSkillFolderProblems(text, folder)).toEqual(problems);
  });

  it('a --- inside the frontmatter ends the block for the validator, as skills-ref reads it', () => {
    expect(agentSkillFolderProblems('---\nname: ab---c\ndescription: x\n---\n', 'ab---c')).toEqual([
      'the folder name must equal the name',
      'description is missing or empty',
    ]);
    // Cut at the ---, the description is still a non-empty text: skills-ref accepts it.
    expect(agentSkillFolderProblems('---\nname: pdf\ndescription: before --- after\n---\nBody.\n', 'pdf')).toEqual([]);
  });

  it('frontmatter fenced as code is refused before any YAML is read', () => {
    expect(agentSkillFolderProblems('---js\nname: x\n---\n', 'x')[0]).toContain('refused');
  });
});

describe('checkAgentSkillsRules', () => {
  it('a spec-valid Unicode name draws no naming warning', () => {
    expect(checkAgentSkillsRules({ name: 'café-skill', description: 'Does one thing.' }, 'skills/café-skill/SKILL.md')).toEqual([]);
  });

  it('names each broken rule', () => {
    const [finding] = checkAgentSkillsRules({ name: 'Loud Skill', description: 'x' }, 'skills/loud/SKILL.md');
    expect(finding?.code).toBe('SKILL_NAME_RULES');
    expect(finding?.message).toContain('name must be lower-case');
    expect(finding?.message).toContain('name may hold only letters, digits and hyphens');
  });

  it('extra fields and a description over 1,024 characters are one SKILL_NOT_PORTABLE warning naming its plugin and who loads it', () => {
    const findings = checkAgentSkillsRules(
      { name: 'access', description: 'd'.repeat(1100), version: '1.0.0', 'user-invocable': true },
      'skills/access/SKILL.md',
      'discord',
    );
    expect(findings.map((finding) => finding.code)).toEqual(['SKILL_NOT_PORTABLE']);
    expect(findings[0]?.message).toMatch(
      /^plugin discord: skills\/access\/SKILL.md: fields user-invocable, version are not Agent Skills fields/,
    );
    expect(findings[0]?.message).toContain('description is longer than 1024 characters');
    expect(findings[0]?.message).toContain('Claude Code and Codex load it');
  });

  it('an empty description stays SKILL_DESCRIPTION_RULES, not a portability note', () => {
    expect(checkAgentSkillsRules({ name: 'quiet', description: ' ' }, 'skills/quiet/SKILL.md').map((finding) => finding.code)).toEqual([
      'SKILL_DESCRIPTION_RULES',
    ]);
  });
});

describe('agentSkillFolderBreaks (each broken rule by name)', () => {
  it('tells the rules runtimes tolerate from the rest', () => {
    const text = skillFile('tool-user', `description: ${'x'.repeat(1100)}\ntools: Read, Write\n`);
    expect(agentSkillFolderBreaks(text, 'tool-user').map((problem) => problem.rule)).toEqual(['fields', 'description-length']);
    expect(agentSkillFolderBreaks(text, 'other-folder').map((problem) => problem.rule)).toEqual([
      'fields',
      'folder-name',
      'description-length',
    ]);
    expect(agentSkillFolderBreaks('no fence', 'x').map((problem) => problem.rule)).toEqual(['frontmatter']);
  });
});

describe('validatorFields (the frontmatter as the validator reads it, without js-yaml when it is flat)', () => {
  // Values around every difference between js-yaml's default and core schemas, and the flat shape's edges.
  const values = [
    'pdf',
    'Fills PDF forms.',
    '2024-01-01',
    '2024-1-1',
    '2024-01-01T10:00:00Z',
    '2024-01-01 10:00:00',
    '2024-01-01 is a date',
    '1999-',
    "'2024-01-01'",
    '"2024-01-01"',
    '12',
    '0x1F',
    '0o17',
    '1_000',
    '1e3',
    '.5',
    '-.inf',
    '.NaN',
    '~',
    'null',
    'Null',
    'true',
    'False',
    'yes',
    'on',
    '<<',
    "'quoted'",
    "'it''s'",
    '"double"',
    '"esc\\n"',
    '',
    'a: b',
    'a #b',
    '#x',
    '[a, b]',
    '{a: 1}',
    '&anchor x',
    '*alias',
    '!!str 2024-01-01',
    '!!timestamp 2024-01-01',
    '|',
    '>',
    'café',
    'x\ty',
  ];
  const texts = values.flatMap((value) => [
    `\nname: ${value}\ndescription: ${value}\n`,
    `name: pdf\ndescription: ${value}\nlicense: MIT\n`,
    `\r\nname: ${value}\r\n`,
  ]);
  texts.push('\n<<: {a: 1}\nname: pdf\n', '\nname: pdf\nname: again\n', '\n  name: pdf\n', '\n', '', 'name: pdf\nmetadata:\n  a: 1\n');
  texts.push(
    ...values.flatMap((value) => [
      `name: pdf\nmetadata:\n  created: ${value}\n  tags: [x, y]\n`,
      `name: pdf\ntags: [${value}]\n`,
      `name: pdf\nmetadata:\n  tags: [a, ${value}]\n`,
    ]),
  );

  it.each(texts)('reads %j as js-yaml’s default schema does', (text) => {
    let expected: unknown;
    try {
      expected = yaml.load(text);
    } catch (error) {
      expect(() => validatorFields(text)).toThrow((error as Error).message);
      return;
    }
    expect(validatorFields(text)).toStrictEqual(expected);
  });

  it('reads the common frontmatter without js-yaml', () => {
    expect(parseFlatMapping('\nname: pdf\ndescription: Fills PDF forms.\n')).toEqual({ name: 'pdf', description: 'Fills PDF forms.' });
  });
});
