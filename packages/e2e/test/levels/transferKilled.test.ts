import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeTestdirs, type TreeDescription, writeTree } from '@loadout/files/testing';
import { rewriteMarkdownName, type TransferStep } from '@loadout/levels';
import { closeLevels, levelsWorkspace, openLevels, skillText, snapshot } from '@loadout/levels/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runLoadout } from './runLoadout.js';

const shmDirs: string[] = [];
afterEach(() => {
  closeLevels();
  removeTestdirs();
  for (const dir of shmDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const folderSkill = {
  'SKILL.md': skillText('pdf', 'project pdf'),
  scripts: { 'extract.py': 'print(1)\n' },
  reference: { 'forms.md': '# Forms\n' },
};
const renamedFolder = { ...folderSkill, 'SKILL.md': rewriteMarkdownName(skillText('pdf', 'project pdf'), 'pdf (2)', 'x') };
const server = '{\n  "name": "Mine",\n  "command": "node"\n}\n';
const ALL: TransferStep[] = ['staged', 'landed', 'state-moved', 'gates-moved', 'source-hidden', 'source-removed'];

interface Scenario {
  title: string;
  kind: 'skills' | 'servers';
  /** The steps this move passes; the test kills it after each. */
  steps: TransferStep[];
  capabilities: TreeDescription;
  source: { entry: string; tree: TreeDescription | string; id: string };
  /** The landing entry (relative to the global root) and what it must hold once whole. */
  landing: { entry: string; tree: TreeDescription | string; id: string };
  /** Puts the project on another file system. */
  otherDisk?: boolean;
}

const scenarios: Scenario[] = [
  {
    title: 'a plain rename of a single file',
    kind: 'skills',
    steps: ['landed', 'state-moved', 'gates-moved'],
    capabilities: {},
    source: { entry: 'skills/notes.md', tree: skillText('notes'), id: 'notes' },
    landing: { entry: 'skills/notes.md', tree: skillText('notes'), id: 'notes' },
  },
  {
    title: 'a single file rewritten for a collision',
    kind: 'skills',
    steps: ALL,
    capabilities: { skills: { 'notes.md': skillText('notes', 'global notes') } },
    source: { entry: 'skills/notes.md', tree: skillText('notes'), id: 'notes' },
    landing: { entry: 'skills/notes-2.md', tree: rewriteMarkdownName(skillText('notes'), 'notes (2)', 'x'), id: 'notes-2' },
  },
  {
    title: 'a folder skill with resources rewritten for a collision',
    kind: 'skills',
    steps: ALL,
    capabilities: { skills: { pdf: { 'SKILL.md': skillText('pdf', 'global pdf') } } },
    source: { entry: 'skills/pdf', tree: folderSkill, id: 'pdf' },
    landing: { entry: 'skills/pdf-2', tree: renamedFolder, id: 'pdf-2' },
  },
  {
    title: 'a server JSON rewritten for a case-insensitive collision',
    kind: 'servers',
    steps: ALL,
    capabilities: { servers: { 'myserver.json': JSON.stringify({ name: 'mine', url: 'https://a.example' }) } },
    source: { entry: 'servers/MyServer.json', tree: server, id: 'MyServer' },
    landing: { entry: 'servers/MyServer-2.json', tree: server.replace('"Mine"', '"Mine (2)"'), id: 'MyServer-2' },
  },
  {
    title: 'a folder skill across two real file systems',
    kind: 'skills',
    steps: ALL,
    capabilities: {},
    source: { entry: 'skills/pdf', tree: folderSkill, id: 'pdf' },
    landing: { entry: 'skills/pdf', tree: folderSkill, id: 'pdf' },
    otherDisk: true,
  },
];

/** A project folder on /dev/shm when that is another file system than the temp folder. */
function projectOnOtherDisk(): string | null {
  try {
    if (fs.statSync('/dev/shm').dev === fs.statSync(os.tmpdir()).dev) return null;
    const dir = fs.realpathSync(fs.mkdtempSync('/dev/shm/loadout-levels-'));
    shmDirs.push(dir);
    return dir;
  } catch {
    return null;
  }
}

/** The bytes of an entry as a comparable value: a file's text, or a folder's files. */
function contentOf(target: string): unknown {
  if (!fs.existsSync(target)) return null;
  return fs.statSync(target).isDirectory() ? snapshot(target) : fs.readFileSync(target, 'utf8');
}

function expectedContent(tree: TreeDescription | string): unknown {
  if (typeof tree === 'string') return tree;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loadout-expected-'));
  try {
    writeTree(dir, tree);
    return snapshot(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const onOtherDisk = projectOnOtherDisk() !== null;

describe('a move killed with SIGKILL', () => {
  for (const scenario of scenarios) {
    describe.skipIf(scenario.otherDisk === true && !onOtherDisk)(scenario.title, () => {
      it.each(scenario.steps)(
        'after "%s" leaves it once or as a duplicate, never zero, never corrupted; recovery settles it',
        async (step) => {
          const ws = levelsWorkspace({ capabilities: scenario.capabilities });
          const project = scenario.otherDisk === true ? (projectOnOtherDisk() as string) : ws.project;
          const projectRoot = path.join(project, '.agents');
          writeTree(projectRoot, { [scenario.source.entry]: scenario.source.tree } as TreeDescription);
          const kind = scenario.kind === 'skills' ? 'skill' : 'server';
          await openLevels(ws.places).state.setSurfaced(kind, scenario.source.id, project, false);
          closeLevels();
          // A project's server, and a skill with a script, are held until the project is trusted,
          // and a move never lifts a hold.
          expect(runLoadout(ws, ['trust', project]).status).toBe(0);

          const run = runLoadout(
            ws,
            [scenario.kind, 'transfer', scenario.source.id, '--from', `project:${project}`, '--to', 'global', '--json'],
            step,
          );
          expect(run.signal, run.stderr).toBe('SIGKILL');

          const source = contentOf(path.join(projectRoot, scenario.source.entry));
          const landed = contentOf(path.join(ws.places.capabilitiesDir, scenario.landing.entry));
          // Whatever is there is whole: the source as it was, the landing as it should be.
          if (source !== null) expect(source).toEqual(expectedContent(scenario.source.tree));
          if (landed !== null) expect(landed).toEqual(expectedContent(scenario.landing.tree));
          expect(source !== null || landed !== null).toBe(true);

          // The scanner lists every copy that is there, with no refusal.
          const list = runLoadout(ws, [scenario.kind, 'list', '--project', project, '--json']);
          expect(list.status, list.stderr).toBe(0);
          const ids = (JSON.parse(list.stdout) as { id: string; level: string }[]).map((record) => `${record.level}:${record.id}`);
          if (source !== null) expect(ids).toContain(`project:${scenario.source.id}`);
          if (landed !== null) expect(ids).toContain(`global:${scenario.landing.id}`);

          // State moved in one transaction: either still at the source or entirely at the destination.
          const { state } = openLevels(ws.places);
          const atSource = await state.surfacedAt(kind, scenario.source.id, project);
          const atDestination = await state.surfacedAt(kind, scenario.landing.id, null);
          const stateMoved = ALL.indexOf(step) >= ALL.indexOf('state-moved');
          expect([atSource, atDestination]).toEqual(stateMoved ? [undefined, false] : [false, undefined]);

          // The next transfer resolves it (here called directly, with the dead process's lock
          // removed instead of waited out): undone before the state moved, finished after.
          fs.rmSync(path.join(ws.places.dataDir, 'levels-transfer.lock'), { recursive: true, force: true });
          return openLevels(ws.places)
            .levels.recover()
            .then((resolved) => {
              expect(resolved).toHaveLength(1);
              expect(contentOf(path.join(projectRoot, scenario.source.entry))).toEqual(
                stateMoved ? null : expectedContent(scenario.source.tree),
              );
              expect(contentOf(path.join(ws.places.capabilitiesDir, scenario.landing.entry))).toEqual(
                stateMoved ? expectedContent(scenario.landing.tree) : null,
              );
              for (const folder of [path.join(projectRoot, scenario.kind), path.join(ws.places.capabilitiesDir, scenario.kind)]) {
                expect(fs.existsSync(folder) ? fs.readdirSync(folder).filter((name) => name.startsWith('.')) : []).toEqual([]);
              }
            });
        },
      );
    });
  }

  it('is undone by the next transfer through the command line, which then moves it once', () => {
    const ws = levelsWorkspace({ capabilities: { skills: { pdf: { 'SKILL.md': skillText('pdf', 'global pdf') } } } });
    writeTree(path.join(ws.project, '.agents'), { skills: { pdf: folderSkill, 'other.md': skillText('other') } });
    expect(runLoadout(ws, ['trust', ws.project]).status).toBe(0);
    expect(runLoadout(ws, ['skills', 'transfer', 'pdf', '--from', `project:${ws.project}`, '--to', 'global'], 'landed').signal).toBe(
      'SIGKILL',
    );
    expect(fs.readdirSync(path.join(ws.places.capabilitiesDir, 'skills')).sort()).toEqual(['pdf', 'pdf-2']);

    // The killed process's lock goes stale; the next transfer waits for it, undoes the half move
    // and moves the skill again: it lands as pdf-2 once, not as a third copy.
    const next = runLoadout(ws, ['skills', 'transfer', 'pdf', '--from', `project:${ws.project}`, '--to', 'global', '--json']);
    expect(next.status, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({
      moved: true,
      record: { id: 'pdf-2' },
      warnings: [expect.stringMatching(/^undid an interrupted move of skill "pdf"/)],
    });
    expect(fs.readdirSync(path.join(ws.places.capabilitiesDir, 'skills')).sort()).toEqual(['pdf', 'pdf-2']);
    expect(fs.readdirSync(path.join(ws.project, '.agents/skills'))).toEqual(['other.md']);
  }, 60_000);
});
