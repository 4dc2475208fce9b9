import { capabilityId, type KindDocument, MAX_ID_LENGTH } from '@loadout/kernel';
import { describe, expect, it } from 'vitest';
import {
  type Placement,
  type PlacementDestination,
  type PlacementSource,
  planPlacement,
  suffixedName,
  suffixedStem,
} from './planPlacement.js';

/** The planner knows kinds only by these declarations: the skill kind's and the server kind's. */
const SKILL_DOCUMENT: KindDocument = { file: 'SKILL.md', idRule: 'name', nameField: 'frontmatter' };
const SERVER_DOCUMENT: KindDocument = { idRule: 'entry', nameField: 'json' };

const skill = (entryName: string, writtenName: unknown, isFolder = true): PlacementSource => {
  const relative = isFolder ? `skills/${entryName}/SKILL.md` : `skills/${entryName}`;
  const id = capabilityId(writtenName, relative, SKILL_DOCUMENT);
  return {
    kind: 'skill',
    document: SKILL_DOCUMENT,
    entryName,
    isFolder,
    writtenName,
    displayName: typeof writtenName === 'string' && writtenName.trim() !== '' ? writtenName : id,
  };
};
const server = (stem: string, name: string): PlacementSource => ({
  kind: 'server',
  document: SERVER_DOCUMENT,
  entryName: `${stem}.json`,
  isFolder: false,
  writtenName: name,
  displayName: name,
});
const skills = (names: string[], records: [string, string][]): PlacementDestination => ({
  kindFolder: 'skills',
  names,
  records: records.map(([id, name]) => ({ id, name })),
});
const servers = (names: string[], records: [string, string][]): PlacementDestination => ({
  ...skills(names, records),
  kindFolder: 'servers',
});

describe('planPlacement', () => {
  const cases: { title: string; source: PlacementSource; destination: PlacementDestination; expected: Partial<Placement> }[] = [
    {
      title: 'lands as it is when nothing collides',
      source: skill('pdf', 'pdf'),
      destination: skills(['notes'], [['notes', 'notes']]),
      expected: { entryName: 'pdf', id: 'pdf', displayName: 'pdf', rename: null, relativePath: 'skills/pdf/SKILL.md' },
    },
    {
      title: 'a colliding id and name take -2 and (2)',
      source: skill('pdf', 'pdf'),
      destination: skills(['pdf'], [['pdf', 'pdf']]),
      expected: { entryName: 'pdf-2', id: 'pdf-2', displayName: 'pdf (2)', rename: 'pdf (2)' },
    },
    {
      title: 'ids and names collide case-insensitively',
      source: skill('PDF', 'PDF'),
      destination: skills(['pdf.md'], [['pdf', 'pdf']]),
      expected: { entryName: 'PDF-2', id: 'pdf-2', displayName: 'PDF (2)' },
    },
    {
      title: 'the next free suffix is taken',
      source: skill('pdf', 'pdf'),
      destination: skills(
        ['pdf', 'pdf-2', 'x'],
        [
          ['pdf', 'pdf'],
          ['pdf-2', 'pdf (2)'],
          ['pdf-3', 'Something'],
        ],
      ),
      expected: { entryName: 'pdf-4', id: 'pdf-4', displayName: 'pdf (4)' },
    },
    {
      title: 'a Chinese name colliding with the same name lands on the id its suffix gives it',
      source: skill('翻译', '翻译'),
      destination: skills(['翻译'], [[capabilityId('翻译', 'skills/翻译/SKILL.md', SKILL_DOCUMENT), '翻译']]),
      expected: { entryName: '翻译-2', id: '2', displayName: '翻译 (2)', rename: '翻译 (2)' },
    },
    {
      title: 'a Chinese name whose suffix id is taken goes on to the next',
      source: skill('翻译', '翻译'),
      destination: skills(
        ['翻译', 'two.md'],
        [
          [capabilityId('翻译', 'skills/翻译/SKILL.md', SKILL_DOCUMENT), '翻译'],
          ['2', 'two'],
        ],
      ),
      expected: { id: '3', displayName: '翻译 (3)' },
    },
    {
      title: 'a name whose slug another document owns changes its name, not just its file',
      source: skill('tools', 'PDF!'),
      destination: skills(['reader'], [['pdf', 'pdf reader']]),
      expected: { entryName: 'tools-2', id: 'pdf-2', displayName: 'PDF! (2)', rename: 'PDF! (2)' },
    },
    {
      title: 'only the file name collides: the file is renamed, the document kept',
      source: skill('notes.md', 'Notes', false),
      destination: skills(['notes.md'], [['other', 'Other']]),
      expected: { entryName: 'notes-2.md', id: 'notes', displayName: 'Notes', rename: null },
    },
    {
      title: 'a hidden or non-document name in the folder is not overwritten either',
      source: skill('notes.md', 'notes', false),
      destination: skills(['NOTES.md'], []),
      expected: { entryName: 'notes-2.md', rename: null },
    },
    {
      title: 'a document without a name whose display name collides gets one',
      source: skill('notes.md', undefined, false),
      destination: skills(['notes.md'], [['notes', 'notes']]),
      expected: { entryName: 'notes-2.md', id: 'notes-2', displayName: 'notes (2)', rename: 'notes (2)' },
    },
    {
      title: 'an id-only collision of a stem-named document renames the file',
      source: skill('notes.md', undefined, false),
      destination: skills(['other.md'], [['notes', 'Shared Notes']]),
      expected: { entryName: 'notes-2.md', id: 'notes-2', displayName: 'notes-2', rename: null },
    },
    {
      title: 'servers collide by file stem, case-insensitively (MyServer.json vs myserver.json)',
      source: server('MyServer', 'Mine'),
      destination: servers(['myserver.json'], [['myserver', 'Theirs']]),
      expected: { entryName: 'MyServer-2.json', id: 'MyServer-2', displayName: 'Mine', rename: null },
    },
    {
      title: 'a server with the same stem and name takes both suffixes',
      source: server('MyServer', 'Mine'),
      destination: servers(['myserver.json'], [['myserver', 'mine']]),
      expected: { entryName: 'MyServer-2.json', id: 'MyServer-2', displayName: 'Mine (2)', rename: 'Mine (2)' },
    },
    {
      title: 'a server whose name alone collides keeps its file',
      source: server('github', 'GitHub'),
      destination: servers(['gh.json'], [['gh', 'github']]),
      expected: { entryName: 'github.json', id: 'github', displayName: 'GitHub (2)', rename: 'GitHub (2)' },
    },
  ];

  it.each(cases)('$title', ({ source, destination, expected }) => {
    const placement = planPlacement(source, destination);
    expect(placement).toMatchObject(expected);
    expect(capabilityId(placement.rename ?? source.writtenName, placement.relativePath, source.document)).toBe(placement.id);
  });

  it('keeps a suffixed id within the 64-character budget', () => {
    const long = `${'a'.repeat(40)} ${'b'.repeat(30)}`;
    const existingId = capabilityId(long, 'skills/x/SKILL.md', SKILL_DOCUMENT);
    expect(existingId).toHaveLength(MAX_ID_LENGTH);
    const placement = planPlacement(skill('x', long), skills(['x'], [[existingId, long]]));
    expect(placement.id).toHaveLength(MAX_ID_LENGTH);
    expect(placement.id.endsWith('-2')).toBe(true);
    expect(placement.displayName.endsWith(' (2)')).toBe(true);
  });

  it('keeps a stem-derived suffix within the budget too', () => {
    const stem = 'c'.repeat(64);
    const placement = planPlacement(skill(`${stem}.md`, undefined, false), skills([`${stem}.md`], [[stem, stem]]));
    expect(placement.id).toBe(`${'c'.repeat(62)}-2`);
  });

  it('refuses when every suffix is taken, naming the capability', () => {
    const records: [string, string][] = [['pdf', 'pdf']];
    for (let n = 2; n <= 999; n += 1) records.push([`pdf-${n}`, `pdf (${n})`]);
    expect(() => planPlacement(skill('pdf', 'pdf'), skills(['pdf'], records))).toThrow(
      expect.objectContaining({ code: 'TRANSFER_NO_PLACEMENT', message: expect.stringContaining('"pdf"') }),
    );
  });

  it('suffixes a server name within its 200 characters and a stem within 64', () => {
    expect(suffixedName(SERVER_DOCUMENT, 'n'.repeat(200), 12)).toHaveLength(200);
    expect(suffixedStem(SERVER_DOCUMENT, 's'.repeat(64), '.json', 3)).toBe(`${'s'.repeat(62)}-3`);
  });
});
