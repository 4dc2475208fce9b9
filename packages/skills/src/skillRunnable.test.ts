import fs from 'node:fs';
import path from 'node:path';
import type { Root } from '@loadout/kernel';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { readSkillEntry } from './skillKind.js';
import type { SkillRecord } from './SkillRecord.js';
import { MAX_SKILL_FILES, skillRunnableParts, toolGrantsOf } from './skillRunnable.js';

afterEach(removeTestdirs);

/** One skill entry of `root`, read as a session's scan reads it. */
function readSkill(root: Root, entryPath: string): SkillRecord {
  const entry = {
    root,
    folder: path.dirname(entryPath),
    name: path.basename(entryPath),
    path: entryPath,
    isDirectory: fs.statSync(entryPath).isDirectory(),
  };
  const [record] = readSkillEntry(entry).records;
  if (record === undefined) throw new Error(`${entryPath} is not a skill`);
  return record as SkillRecord;
}

const TEXT_SKILL = '---\nname: s\ndescription: d\n---\nBody.\n';

/** One skill folder `skills/s` in a root of the given whose, read as a session reads it. */
function skillIn(
  tree: TreeDescription,
  whose: { level: 'global' | 'project'; plugin: string | null } = { level: 'global', plugin: 'kit' },
) {
  const dir = testdir({ skills: { s: { 'SKILL.md': TEXT_SKILL, ...tree } } });
  const root: Root = { dir, ...whose, writable: false };
  const record = readSkill(root, path.join(dir, 'skills', 's'));
  return { dir, root, record };
}

describe('37 M8 which skills run something', () => {
  it('37 M8 a skill of text (SKILL.md and reference documents) runs nothing, whoever it belongs to', () => {
    const { record, root } = skillIn({ 'reference.md': '# more\n', docs: { 'a.txt': 'x' } });
    expect(record.mayRun).toBe(false);
    expect(skillRunnableParts(record, root)).toBeNull();
  });

  it.each([
    ['a script by its extension', { scripts: { 'run.py': 'print(1)\n' } }, 'skills/s/scripts/run.py'],
    ['an extension-less file that starts with #!', { bin: { go: '#!/bin/sh\necho\n' } }, 'skills/s/bin/go'],
  ])('37 M8 %s makes it runnable; the script is what is fingerprinted', (_title, tree, script) => {
    const { record, root, dir } = skillIn(tree);
    expect(record.mayRun).toBe(true);
    expect(skillRunnableParts(record, root)).toEqual({
      files: [path.join(dir, script)],
      sources: [path.join(dir, 'skills/s')],
      definition: { toolGrants: [] },
      summary: `scripts ${script}`,
    });
  });

  it('37 M8 an executable file makes it runnable', () => {
    const dir = testdir({ skills: { s: { 'SKILL.md': TEXT_SKILL, tool: 'data\n' } } });
    fs.chmodSync(path.join(dir, 'skills/s/tool'), 0o755);
    const root: Root = { dir, level: 'project', plugin: null, writable: true };
    expect(readSkill(root, path.join(dir, 'skills/s')).mayRun).toBe(true);
  });

  it('37 M8 a tool grant in the frontmatter makes even a single-file skill runnable', () => {
    const dir = testdir({
      skills: { 'one.md': '---\nname: one\ndescription: d\nallowed-tools: Bash(git:*) Read\ntools: [Write]\n---\nBody.\n' },
    });
    const root: Root = { dir, level: 'global', plugin: 'kit', writable: false };
    const record = readSkill(root, path.join(dir, 'skills/one.md'));
    expect(record.toolGrants).toEqual(['Bash(git:*) Read', 'Write']);
    expect(record.mayRun).toBe(true);
    expect(skillRunnableParts(record, root)).toMatchObject({
      files: [],
      definition: { toolGrants: ['Bash(git:*) Read', 'Write'] },
      summary: 'grants tools Bash(git:*) Read, Write',
    });
  });

  it("37 M8 the owner's own folder skills are not looked into when read (never held); what they run is read when asked", () => {
    const { record, root } = skillIn({ 'reference.md': '# more\n' }, { level: 'global', plugin: null });
    expect(record.mayRun).toBe(true);
    expect(skillRunnableParts(record, root)).toBeNull();
  });

  it('37 M8 a folder with more files than are looked at may run something and cannot be fingerprinted', () => {
    const many: Record<string, string> = {};
    for (let i = 0; i <= MAX_SKILL_FILES; i += 1) many[`r${i}.md`] = 'x';
    const { record, root } = skillIn(many);
    expect(record.mayRun).toBe(true);
    expect(() => skillRunnableParts(record, root)).toThrow(expect.objectContaining({ code: 'SKILL_TOO_MANY_FILES' }));
  });

  it('37 M8 reads grants as written and ignores empty ones', () => {
    expect(toolGrantsOf({ 'allowed-tools': '  ', tools: ['', 'Bash'] })).toEqual(['Bash']);
    expect(toolGrantsOf({})).toEqual([]);
  });
});
