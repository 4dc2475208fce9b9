import fs from 'node:fs';
import path from 'node:path';
import { Database } from '@loadout/db';
import { type CapabilityHolder, capabilityId, MAX_DOCUMENT_BYTES, resolve, resolvePlaces, SessionLoader } from '@loadout/kernel';
import { removeTestdirs } from '@loadout/files/testing';
import { SKILL_DOCUMENT } from '@loadout/skills';
import { afterEach, describe, expect, it } from 'vitest';
import { rewriteMarkdownName, type TransferResult } from '../src/index.js';
import { type MoveFileSystem, nodeMoveFileSystem } from '../src/MoveFileSystem.js';
import {
  closeLevels,
  installPlugin,
  type LevelsWorkspace,
  type LevelsWorkspaceDescription,
  levelsWorkspace,
  openLevels,
  skillText,
  snapshot,
  twoDisks,
} from '../src/testing/index.js';

afterEach(() => {
  closeLevels();
  removeTestdirs();
});

const crlfSkill =
  '---\r\nlicense: MIT\r\nname: Report Maker\r\ndescription: Makes reports\r\nmetadata:\r\n  team: docs\r\n---\r\n\r\n# Report\r\nText\r\n';
const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);

/** Every document and config under the owner's roots (not the database), to prove nothing changed. */
function roots(ws: LevelsWorkspace) {
  return {
    global: snapshot(ws.places.capabilitiesDir),
    project: snapshot(path.join(ws.project, '.agents')),
    other: snapshot(path.join(ws.other, '.agents')),
  };
}

/** Names a move may leave only while it runs. */
function leftovers(ws: LevelsWorkspace): string[] {
  const found: string[] = [];
  for (const root of [ws.places.capabilitiesDir, path.join(ws.project, '.agents'), path.join(ws.other, '.agents')]) {
    for (const kind of ['skills', 'servers']) {
      const folder = path.join(root, kind);
      if (fs.existsSync(folder)) found.push(...fs.readdirSync(folder).filter((name) => name.startsWith('.loadout-')));
    }
  }
  return found;
}

const project = (ws: LevelsWorkspace) => ({ level: 'project' as const, projectPath: ws.project });
const other = (ws: LevelsWorkspace) => ({ level: 'project' as const, projectPath: ws.other });
const global = { level: 'global' as const };

interface MoveCase {
  title: string;
  workspace: LevelsWorkspaceDescription;
  request: (ws: LevelsWorkspace) => Record<string, unknown>;
  /** Where the source entry was, relative to the home. */
  source: string;
  /** Where it must land, relative to the home, with what id and name. */
  landed: { path: string; id: string; name: string };
  check?: (ws: LevelsWorkspace, result: TransferResult, before: ReturnType<typeof roots>) => void;
}

describe('transfer moves a document between levels', () => {
  const cases: MoveCase[] = [
    {
      title: 'a single-file project skill to global, byte for byte',
      workspace: { project: { skills: { 'notes.md': skillText('notes') } } },
      request: (ws) => ({ kind: 'skill', id: 'notes', from: project(ws), to: global }),
      source: 'project/.agents/skills/notes.md',
      landed: { path: 'capabilities/skills/notes.md', id: 'notes', name: 'notes' },
      check: (ws) => expect(fs.readFileSync(path.join(ws.places.capabilitiesDir, 'skills/notes.md'), 'utf8')).toBe(skillText('notes')),
    },
    {
      title: 'a folder skill with nested resources over a colliding id and name',
      workspace: {
        capabilities: { skills: { pdf: { 'SKILL.md': skillText('pdf', 'the global one') } } },
        project: {
          skills: {
            pdf: {
              'SKILL.md': skillText('pdf', 'the project one'),
              scripts: { 'extract.py': 'print("x")\n' },
              reference: { forms: { 'a.md': '# A\n', 'logo.png': png } },
            },
          },
        },
      },
      request: (ws) => ({ kind: 'skill', id: 'PDF', from: project(ws), to: global }),
      source: 'project/.agents/skills/pdf',
      landed: { path: 'capabilities/skills/pdf-2/SKILL.md', id: 'pdf-2', name: 'pdf (2)' },
      check: (ws, result, before) => {
        const landed = path.join(ws.places.capabilitiesDir, 'skills/pdf-2');
        expect(snapshot(landed)).toMatchObject({ 'scripts/extract.py': expect.any(String), 'reference/forms/a.md': expect.any(String) });
        expect(fs.readFileSync(path.join(landed, 'reference/forms/logo.png'))).toEqual(png);
        expect(fs.readFileSync(path.join(landed, 'SKILL.md'), 'utf8')).toBe(
          skillText('pdf', 'the project one').replace('name: pdf\n', 'name: pdf (2)\n'),
        );
        expect(snapshot(path.join(ws.places.capabilitiesDir, 'skills/pdf'))).toEqual({
          'SKILL.md': before.global?.['skills/pdf/SKILL.md'],
        });
        expect(result).toMatchObject({ renamed: true, previous: { id: 'pdf', name: 'pdf' } });
      },
    },
    {
      title: 'a CRLF document with extra frontmatter fields keeps every byte but the name line',
      workspace: {
        capabilities: { skills: { 'report.md': skillText('Report Maker') } },
        project: { skills: { 'report.md': crlfSkill } },
      },
      request: (ws) => ({ kind: 'skill', id: 'report-maker', from: project(ws), to: global }),
      source: 'project/.agents/skills/report.md',
      landed: { path: 'capabilities/skills/report-2.md', id: 'report-maker-2', name: 'Report Maker (2)' },
      check: (ws) =>
        expect(fs.readFileSync(path.join(ws.places.capabilitiesDir, 'skills/report-2.md'), 'utf8')).toBe(
          crlfSkill.replace('name: Report Maker\r\n', 'name: Report Maker (2)\r\n'),
        ),
    },
    {
      title: 'a Chinese display name colliding with the same name lands on the id its suffix gives',
      workspace: {
        capabilities: { skills: { 翻译: { 'SKILL.md': skillText('翻译', '全局') } } },
        project: { skills: { 翻译: { 'SKILL.md': skillText('翻译', '项目'), 'terms.csv': 'a,b\n' } } },
      },
      request: (ws) => ({ kind: 'skill', id: capabilityId('翻译', 'skills/翻译/SKILL.md', SKILL_DOCUMENT), from: project(ws), to: global }),
      source: 'project/.agents/skills/翻译',
      landed: { path: 'capabilities/skills/翻译-2/SKILL.md', id: '2', name: '翻译 (2)' },
      check: (ws) => expect(fs.readFileSync(path.join(ws.places.capabilitiesDir, 'skills/翻译-2/terms.csv'), 'utf8')).toBe('a,b\n'),
    },
    {
      title: 'a document without frontmatter whose name collides gets a fresh block',
      workspace: { capabilities: { skills: { 'notes.md': '# Notes\n' } }, project: { skills: { 'notes.md': 'Plain text.\n' } } },
      request: (ws) => ({ kind: 'skill', id: 'notes', from: project(ws), to: global }),
      source: 'project/.agents/skills/notes.md',
      landed: { path: 'capabilities/skills/notes-2.md', id: 'notes-2', name: 'notes (2)' },
      check: (ws) =>
        expect(fs.readFileSync(path.join(ws.places.capabilitiesDir, 'skills/notes-2.md'), 'utf8')).toBe(
          '---\nname: notes (2)\n---\nPlain text.\n',
        ),
    },
    {
      title: 'MyServer.json against myserver.json: the id and the colliding name are suffixed',
      workspace: {
        capabilities: { servers: { 'myserver.json': JSON.stringify({ name: 'mine', url: 'https://a.example/mcp' }) } },
        project: { servers: { 'MyServer.json': '{\n  "name": "Mine",\n  "command": "node",\n  "args": ["srv.js"]\n}\n' } },
      },
      request: (ws) => ({ kind: 'server', id: 'myserver', from: project(ws), to: global }),
      source: 'project/.agents/servers/MyServer.json',
      landed: { path: 'capabilities/servers/MyServer-2.json', id: 'MyServer-2', name: 'Mine (2)' },
      check: (ws) => {
        expect(fs.readFileSync(path.join(ws.places.capabilitiesDir, 'servers/MyServer-2.json'), 'utf8')).toBe(
          '{\n  "name": "Mine (2)",\n  "command": "node",\n  "args": ["srv.js"]\n}\n',
        );
        expect(JSON.parse(fs.readFileSync(path.join(ws.places.capabilitiesDir, 'servers/myserver.json'), 'utf8'))).toEqual({
          name: 'mine',
          url: 'https://a.example/mcp',
        });
      },
    },
    {
      title: 'a global server into a project',
      workspace: { capabilities: { servers: { 'github.json': JSON.stringify({ name: 'GitHub', url: 'https://gh.example/mcp' }) } } },
      request: (ws) => ({ kind: 'server', id: 'github', from: global, to: project(ws) }),
      source: 'capabilities/servers/github.json',
      landed: { path: 'project/.agents/servers/github.json', id: 'github', name: 'GitHub' },
    },
    {
      title: 'a skill from one project to another, whose .agents does not exist yet',
      workspace: { project: { skills: { lint: { 'SKILL.md': skillText('lint'), 'rules.txt': 'r\n' } } } },
      request: (ws) => {
        fs.rmSync(path.join(ws.other, '.agents'), { recursive: true });
        return { kind: 'skill', id: 'lint', from: project(ws), to: other(ws) };
      },
      source: 'project/.agents/skills/lint',
      landed: { path: 'other/.agents/skills/lint/SKILL.md', id: 'lint', name: 'lint' },
      check: (ws) => expect(fs.readFileSync(path.join(ws.other, '.agents/skills/lint/rules.txt'), 'utf8')).toBe('r\n'),
    },
  ];

  it.each(cases)('$title', async ({ workspace, request, source, landed, check }) => {
    const ws = levelsWorkspace(workspace);
    const before = roots(ws);
    const { levels } = openLevels(ws.places);
    const result = await levels.transfer(request(ws));
    expect(result).toMatchObject({
      moved: true,
      record: { id: landed.id, name: landed.name, path: path.join(ws.places.home, landed.path), plugin: null },
    });
    expect(fs.existsSync(path.join(ws.places.home, source))).toBe(false);
    expect(fs.existsSync(path.join(ws.places.home, landed.path))).toBe(true);
    expect(leftovers(ws)).toEqual([]);
    // The scanner lists it under the id it reported, in a fresh session of the destination.
    const sessionProject = landed.path.startsWith('project/') ? ws.project : landed.path.startsWith('other/') ? ws.other : null;
    const session = await openLevels(ws.places).container.resolve(SessionLoader).open({ project: sessionProject });
    expect(session.find(result.record.kind, landed.id)?.path).toBe(path.join(ws.places.home, landed.path));
    check?.(ws, result, before);
  });
});

interface RefusalCase {
  title: string;
  workspace: LevelsWorkspaceDescription;
  /** Changes the workspace before the request (a plugin, a link …). */
  arrange?: (ws: LevelsWorkspace, container: ReturnType<typeof openLevels>['container']) => void;
  request: (ws: LevelsWorkspace) => unknown;
  files?: (ws: LevelsWorkspace) => MoveFileSystem;
  error: { code: string; message?: RegExp };
}

describe('transfer refuses, and changes nothing', () => {
  // One byte under the limit: fine where it is, over the limit once " (2)" is added to its name.
  const big = skillText('big', 'b', `${'x'.repeat(MAX_DOCUMENT_BYTES - skillText('big', 'b', '').length - 2)}\n`);
  const cases: RefusalCase[] = [
    {
      title: 'a project end without a project path',
      workspace: { project: { skills: { 'notes.md': skillText('notes') } } },
      request: () => ({ kind: 'skill', id: 'notes', from: { level: 'project' }, to: global }),
      error: { code: 'CAPABILITY_INVALID', message: /projectPath/ },
    },
    {
      title: "a plugin's document, naming the plugin",
      workspace: {},
      arrange: (ws, container) =>
        installPlugin(container, ws.places, 'extras', { skills: { charts: { 'SKILL.md': skillText('charts') } } }),
      request: (ws) => ({ kind: 'skill', id: 'charts', from: global, to: project(ws) }),
      error: { code: 'CAPABILITY_FROM_PLUGIN', message: /plugin "extras"/ },
    },
    {
      title: 'a capability that is not at the source end',
      workspace: { capabilities: { skills: { 'notes.md': skillText('notes') } } },
      request: (ws) => ({ kind: 'skill', id: 'notes', from: project(ws), to: global }),
      error: { code: 'CAPABILITY_NOT_FOUND', message: /no skill "notes" at the project level/ },
    },
    {
      title: 'a project folder that does not exist',
      workspace: { capabilities: { skills: { 'notes.md': skillText('notes') } } },
      request: (ws) => ({
        kind: 'skill',
        id: 'notes',
        from: global,
        to: { level: 'project', projectPath: path.join(ws.places.home, 'missing') },
      }),
      error: { code: 'PROJECT_NOT_FOUND' },
    },
    {
      title: 'a skill folder that is a link',
      workspace: { project: { shared: { pdf: { 'SKILL.md': skillText('pdf') } }, skills: {} } },
      arrange: (ws) => fs.symlinkSync('../shared/pdf', path.join(ws.project, '.agents/skills/pdf')),
      request: (ws) => ({ kind: 'skill', id: 'pdf', from: project(ws), to: global }),
      error: { code: 'TRANSFER_REFUSED', message: /is a link/ },
    },
    {
      title: 'a landing the scanner refuses as oversized, rolled back',
      workspace: { capabilities: { skills: { 'big.md': skillText('big') } }, project: { skills: { 'big.md': big } } },
      request: (ws) => ({ kind: 'skill', id: 'big', from: project(ws), to: global }),
      error: { code: 'TRANSFER_LANDING_REFUSED', message: /larger than 1048576 bytes.*source is back/ },
    },
    {
      title: 'a renamed folder whose SKILL.md link no longer resolves there, renamed back',
      workspace: { project: { docs: { 'linked.md': skillText('linked') }, skills: { linked: {} } } },
      arrange: (ws) => fs.symlinkSync('../../docs/linked.md', path.join(ws.project, '.agents/skills/linked/SKILL.md')),
      request: (ws) => ({ kind: 'skill', id: 'linked', from: project(ws), to: global }),
      error: { code: 'TRANSFER_LANDING_REFUSED', message: /finds no skill in skills\/linked\/SKILL\.md/ },
    },
    {
      title: 'a copy across file systems that loses its bytes, rolled back',
      workspace: { project: { skills: { pdf: { 'SKILL.md': skillText('Pdf Reader'), 'r.txt': 'r' } } } },
      files: (ws) =>
        twoDisks(ws.project, {
          copy: (from, to) => {
            nodeMoveFileSystem.copy(from, to);
            fs.writeFileSync(path.join(to, 'SKILL.md'), '');
          },
        }),
      request: (ws) => ({ kind: 'skill', id: 'pdf-reader', from: project(ws), to: global }),
      error: { code: 'TRANSFER_LANDING_REFUSED', message: /reads skills\/pdf\/SKILL\.md as "pdf", not the planned "pdf-reader"/ },
    },
    {
      title: 'a copy across file systems that fails part-way',
      workspace: { project: { skills: { pdf: { 'SKILL.md': skillText('pdf'), 'a.txt': 'a', 'b.txt': 'b' } } } },
      files: (ws) =>
        twoDisks(ws.project, {
          copy: (from, to) => {
            fs.mkdirSync(to);
            fs.copyFileSync(path.join(from, 'a.txt'), path.join(to, 'a.txt'));
            throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
          },
        }),
      request: (ws) => ({ kind: 'skill', id: 'pdf', from: project(ws), to: global }),
      error: { code: 'TRANSFER_FAILED', message: /ENOSPC.*source was left as it was/ },
    },
    {
      title: 'a destination config.json that cannot be read, before anything moves',
      workspace: { project: { skills: { 'notes.md': skillText('notes') }, 'config.json': '{ broken' } },
      request: (ws) => ({ kind: 'skill', id: 'notes', from: project(ws), to: global }),
      error: { code: 'STATE_CONFIG_INVALID' },
    },
  ];

  it.each(cases)('$title', async ({ workspace, arrange, request, files, error }) => {
    const ws = levelsWorkspace(workspace);
    const { container, levels, state } = openLevels(ws.places, files?.(ws));
    arrange?.(ws, container);
    await state.setSurfaced('skill', 'notes', ws.project, false);
    const before = roots(ws);
    await expect(levels.transfer(request(ws))).rejects.toMatchObject({
      code: error.code,
      ...(error.message ? { message: expect.stringMatching(error.message) } : {}),
    });
    expect(roots(ws)).toEqual(before);
    expect(leftovers(ws)).toEqual([]);
    expect(await state.surfacedAt('skill', 'notes', ws.project)).toBe(false);
  });
});

describe('transfer between one folder is a no-op', () => {
  it.each([
    ['a project to itself', (ws: LevelsWorkspace) => ({ from: project(ws), to: project(ws) })],
    [
      "a project whose .agents is the owner's folder, to global",
      (ws: LevelsWorkspace) => {
        fs.rmSync(path.join(ws.project, '.agents'), { recursive: true });
        fs.symlinkSync(ws.places.capabilitiesDir, path.join(ws.project, '.agents'));
        return { from: project(ws), to: global };
      },
    ],
  ])('%s returns the current record and touches nothing', async (_title, ends) => {
    const ws = levelsWorkspace({
      capabilities: { skills: { 'notes.md': skillText('notes') } },
      project: { skills: { 'notes.md': skillText('notes') } },
    });
    const request = { kind: 'skill', id: 'notes', ...ends(ws) };
    const { levels, state } = openLevels(ws.places);
    await state.setSurfaced('skill', 'notes', ws.project, false);
    const before = roots(ws);
    const mtime = fs.statSync(path.join(ws.project, '.agents/skills/notes.md')).mtimeMs;
    const result = await levels.transfer(request);
    expect(result).toMatchObject({ moved: false, record: { id: 'notes', path: path.join(ws.project, '.agents/skills/notes.md') } });
    expect(roots(ws)).toEqual(before);
    expect(fs.statSync(path.join(ws.project, '.agents/skills/notes.md')).mtimeMs).toBe(mtime);
    expect(await state.surfacedAt('skill', 'notes', ws.project)).toBe(false);
  });
});

describe('the global root', () => {
  it.each([
    ['LOADOUT_CAPABILITIES_DIR redirects it', 'elsewhere/caps', 'elsewhere/caps/skills/notes.md'],
    ['an empty LOADOUT_CAPABILITIES_DIR falls back to the home', '', 'capabilities/skills/notes.md'],
  ])('%s', async (_title, value, landed) => {
    const ws = levelsWorkspace({ project: { skills: { 'notes.md': skillText('notes') } } });
    const places = resolvePlaces({ LOADOUT_HOME: ws.places.home, LOADOUT_CAPABILITIES_DIR: value }, '/nonexistent', ws.places.home);
    const result = await openLevels(places).levels.transfer({ kind: 'skill', id: 'notes', from: project(ws), to: global });
    expect(result.record.path).toBe(path.join(ws.places.home, landed));
    expect(fs.readFileSync(result.record.path, 'utf8')).toBe(skillText('notes'));
  });
});

describe('across file systems', () => {
  it.each([
    [
      'a folder skill with resources',
      { skills: { pdf: { 'SKILL.md': skillText('pdf'), deep: { 'x.bin': png } } } },
      'pdf',
      'skills/pdf/SKILL.md',
    ],
    ['a single file that must be renamed', { skills: { 'notes.md': skillText('notes') } }, 'notes', 'skills/notes-2.md'],
    ['a server JSON', { servers: { 'gh.json': JSON.stringify({ name: 'gh', url: 'https://gh.example' }) } }, 'gh', 'servers/gh.json'],
  ])('copies then removes %s when rename says EXDEV', async (_title, tree, id, landed) => {
    const ws = levelsWorkspace({ project: tree, capabilities: { skills: { 'notes.md': skillText('notes') } } });
    const files = twoDisks(ws.project);
    const kind = landed.startsWith('servers') ? 'server' : 'skill';
    const result = await openLevels(ws.places, files).levels.transfer({ kind, id, from: project(ws), to: global });
    expect(result.record.path).toBe(path.join(ws.places.capabilitiesDir, landed));
    expect(snapshot(path.join(ws.project, '.agents', kind === 'server' ? 'servers' : 'skills'))).toEqual({});
    expect(leftovers(ws)).toEqual([]);
    if (id === 'pdf') expect(fs.readFileSync(path.join(ws.places.capabilitiesDir, 'skills/pdf/deep/x.bin'))).toEqual(png);
    // No rename ever crossed the two disks: the copy was renamed into place on the destination.
    expect(
      files.renames.every(
        ([from, to]) => path.dirname(from as string) === path.dirname(to as string) || !(from as string).startsWith(ws.project),
      ),
    ).toBe(true);
  });
});

describe('state follows the document', () => {
  it('a project skill that is off there arrives off as the global default; the project override goes', async () => {
    const ws = levelsWorkspace({
      capabilities: { skills: { pdf: { 'SKILL.md': skillText('pdf') } } },
      project: { skills: { pdf: { 'SKILL.md': skillText('pdf') } } },
    });
    const { levels, state } = openLevels(ws.places);
    await state.setSurfaced('skill', 'pdf', ws.project, false);
    const result = await levels.transfer({ kind: 'skill', id: 'pdf', from: project(ws), to: global });
    expect(result).toMatchObject({ record: { id: 'pdf-2' }, surfaced: false });
    expect(await state.surfacedAt('skill', 'pdf-2', null)).toBe(false);
    expect(await state.surfacedAt('skill', 'pdf', ws.project)).toBeUndefined();
    expect(await state.surfacedAt('skill', 'pdf', null)).toBeUndefined();
  });

  it("a global skill drops every project's override and stores what the global row showed in the project", async () => {
    const ws = levelsWorkspace({ capabilities: { skills: { pdf: { 'SKILL.md': skillText('pdf') } } } });
    const { levels, state } = openLevels(ws.places);
    await state.setSurfaced('skill', 'pdf', null, false);
    await state.setSurfaced('skill', 'pdf', ws.project, true);
    await state.setSurfaced('skill', 'pdf', ws.other, true);
    const result = await levels.transfer({ kind: 'skill', id: 'pdf', from: global, to: other(ws) });
    expect(result.surfaced).toBe(false);
    expect(await state.surfacedAt('skill', 'pdf', null)).toBeUndefined();
    expect(await state.surfacedAt('skill', 'pdf', ws.project)).toBeUndefined();
    expect(await state.surfacedAt('skill', 'pdf', ws.other)).toBe(false);
  });

  it('a global source read in a project carries the value that project saw', async () => {
    const ws = levelsWorkspace({ capabilities: { servers: { 'gh.json': JSON.stringify({ name: 'gh', url: 'https://gh.example' }) } } });
    const { levels, state } = openLevels(ws.places);
    await state.setSurfaced('server', 'gh', ws.project, false);
    const result = await levels.transfer({ kind: 'server', id: 'gh', from: { level: 'global', projectPath: ws.project }, to: other(ws) });
    expect(result.surfaced).toBe(false);
    expect(await state.surfacedAt('server', 'gh', ws.other)).toBe(false);
    expect(await state.surfacedAt('server', 'gh', ws.project)).toBeUndefined();
  });

  it('gate settings move from the source root config.json to the destination one under the new id', async () => {
    const gated = '---\nname: pdf\ndescription: d\ngates:\n  ocr: on\n  tables: on\n---\nb\n';
    const ws = levelsWorkspace({
      capabilities: {
        skills: { pdf: { 'SKILL.md': gated } },
        'config.json': JSON.stringify({ theme: 'dark', gates: { 'skill/PDF': { ocr: 'off' }, 'skill/other': { x: 'on' } } }, null, 4),
      },
      project: { skills: { 'pdf.md': skillText('pdf') } },
    });
    const result = await openLevels(ws.places).levels.transfer({ kind: 'skill', id: 'pdf', from: global, to: project(ws) });
    expect(result).toMatchObject({ record: { id: 'pdf-2' }, gates: { ocr: false } });
    expect(JSON.parse(fs.readFileSync(path.join(ws.project, '.agents/config.json'), 'utf8'))).toEqual({
      gates: { 'skill/pdf-2': { ocr: false } },
    });
    const globalConfig = fs.readFileSync(path.join(ws.places.capabilitiesDir, 'config.json'), 'utf8');
    expect(JSON.parse(globalConfig)).toEqual({ theme: 'dark', gates: { 'skill/other': { x: 'on' } } });
    expect(globalConfig).toMatch(/^\{\n {4}"theme"/);
    expect(fs.readFileSync(result.record.path, 'utf8')).toBe(rewriteMarkdownName(gated, 'pdf (2)', 'x'));
  });
});

describe('a move that stops half-way', () => {
  it('reports a source it could not remove, and the next transfer finishes the move', async () => {
    const ws = levelsWorkspace({
      capabilities: { skills: { 'notes.md': skillText('notes', 'global') } },
      project: { skills: { 'notes.md': skillText('notes') } },
    });
    let refuse = true;
    const files: MoveFileSystem = {
      ...nodeMoveFileSystem,
      rename: (from, to) => {
        if (refuse && path.basename(to).startsWith('.loadout-moved-'))
          throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
        nodeMoveFileSystem.rename(from, to);
      },
    };
    const { levels, state } = openLevels(ws.places, files);
    await state.setSurfaced('skill', 'notes', ws.project, false);
    await expect(levels.transfer({ kind: 'skill', id: 'notes', from: project(ws), to: global })).rejects.toMatchObject({
      code: 'TRANSFER_FAILED',
      message: expect.stringMatching(/landed at .*notes-2\.md with its state, but .* could not be removed \(EACCES/),
    });
    expect(fs.existsSync(path.join(ws.project, '.agents/skills/notes.md'))).toBe(true);
    expect(await state.surfacedAt('skill', 'notes-2', null)).toBe(false);

    refuse = false;
    expect(await levels.recover()).toEqual([
      expect.stringMatching(/^finished an interrupted move of skill "notes": it is at .*notes-2\.md$/),
    ]);
    expect(fs.readdirSync(path.join(ws.project, '.agents/skills'))).toEqual([]);
    expect(fs.readdirSync(path.join(ws.places.capabilitiesDir, 'skills')).sort()).toEqual(['notes-2.md', 'notes.md']);
    expect(await levels.recover()).toEqual([]);
  });

  it('refuses before anything is touched when the database is held by another writer', async () => {
    const ws = levelsWorkspace({ project: { skills: { pdf: { 'SKILL.md': skillText('pdf'), 'r.txt': 'r' } } } });
    const { container, levels, state } = openLevels(ws.places);
    await state.setSurfaced('skill', 'pdf', ws.project, false);
    resolve(container, Database).pragma('busy_timeout = 50');
    const other = resolve(openLevels(ws.places).container, Database);
    const before = roots(ws);
    other.exec('BEGIN IMMEDIATE');
    try {
      await expect(levels.transfer({ kind: 'skill', id: 'pdf', from: project(ws), to: global })).rejects.toMatchObject({
        code: 'TRANSFER_FAILED',
        message: expect.stringMatching(/database/),
      });
    } finally {
      other.exec('ROLLBACK');
    }
    expect(roots(ws)).toEqual(before);
    expect(await levels.recover()).toEqual([]);
    expect(await state.surfacedAt('skill', 'pdf', ws.project)).toBe(false);
  });
});

describe('37 M2 a transfer never lifts a hold', () => {
  // The trust package's rule in small: a project's own server is held while its project is not in `trusted`.
  const trusted = new Set<string>();
  const holder: CapabilityHolder = {
    forSession:
      ({ project }) =>
      (records) =>
        new Map(
          records
            .filter((record) => record.kind === 'server' && record.level === 'project' && (project === null || !trusted.has(project)))
            .map((record) => [record, { decidedBy: 'untrusted-project' as const, reason: `project ${project} is not trusted` }]),
        ),
  };
  afterEach(() => trusted.clear());
  const held = { servers: { 'evil.json': JSON.stringify({ name: 'evil', command: 'sh', args: ['-c', 'true'] }) } };

  it('37 M2 refuses a held server into the global level or a trusted project, nothing touched', async () => {
    const ws = levelsWorkspace({ project: held });
    const { levels } = openLevels(ws.places, nodeMoveFileSystem, holder);
    trusted.add(fs.realpathSync(ws.other));
    const before = roots(ws);
    for (const to of [global, other(ws)]) {
      await expect(levels.transfer({ kind: 'server', id: 'evil', from: project(ws), to })).rejects.toMatchObject({
        code: 'TRANSFER_HELD',
        message: /nothing was moved/,
      });
    }
    expect(roots(ws)).toEqual(before);
  });

  it('37 M2 moves a held server into another untrusted project (held there too), and any server once its project is trusted', async () => {
    const ws = levelsWorkspace({
      project: held,
      other: { servers: { 'mine.json': JSON.stringify({ name: 'mine', url: 'https://a.example/mcp' }) } },
    });
    const { levels } = openLevels(ws.places, nodeMoveFileSystem, holder);
    expect(await levels.transfer({ kind: 'server', id: 'evil', from: project(ws), to: other(ws) })).toMatchObject({ moved: true });
    trusted.add(fs.realpathSync(ws.other));
    expect(await levels.transfer({ kind: 'server', id: 'evil', from: other(ws), to: global })).toMatchObject({
      moved: true,
      record: { level: 'global' },
    });
  });
});
