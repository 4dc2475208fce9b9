import fs from 'node:fs';
import path from 'node:path';
import { type Root, type RunnableParts } from '@loadout/kernel';
import { DocumentRefusedError, realpathInside, trackedFs } from '@loadout/files';
import type { SkillRecord } from './SkillRecord.js';

/**
 * When a skill runs something, for trust (issue 37 M8): a runtime that reads a skill folder can run
 * its scripts, and a skill whose frontmatter grants tools (`allowed-tools: Bash(…)`) lets the agent
 * run commands without asking. Such a skill is held like a task until its plugin is approved or its
 * project trusted; a skill of text (a `SKILL.md` and reference documents) runs nothing and is never
 * held.
 */

/** The frontmatter fields that grant an agent tools while the skill is in use. */
export const TOOL_GRANT_FIELDS = ['allowed-tools', 'tools'] as const;

/**
 * File name endings of scripts an agent or a runtime may run. A file without one still counts when
 * it is executable, or when it has no extension and starts with `#!`.
 */
const SCRIPT_EXTENSIONS = new Set([
  '.sh',
  '.bash',
  '.zsh',
  '.fish',
  '.ksh',
  '.command',
  '.py',
  '.pyw',
  '.js',
  '.mjs',
  '.cjs',
  '.ts',
  '.mts',
  '.cts',
  '.jsx',
  '.tsx',
  '.rb',
  '.pl',
  '.pm',
  '.php',
  '.lua',
  '.r',
  '.jl',
  '.tcl',
  '.awk',
  '.sed',
  '.ps1',
  '.psm1',
  '.bat',
  '.cmd',
  '.vbs',
  '.exe',
  '.dll',
  '.so',
  '.dylib',
  '.jar',
  '.wasm',
  '.bin',
  '.appimage',
]);

/** The most entries of one skill folder that are looked at; a folder holding more is taken to run something. */
export const MAX_SKILL_FILES = 512;

/** The tools a skill's frontmatter grants, as written: `allowed-tools` and `tools`, a string or a list each. */
export function toolGrantsOf(frontmatter: Readonly<Record<string, unknown>>): readonly string[] {
  const grants: string[] = [];
  for (const field of TOOL_GRANT_FIELDS) {
    const value = frontmatter[field];
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) {
      if (typeof item === 'string' && item.trim() !== '') grants.push(item.trim());
      else if (typeof item === 'number' || typeof item === 'boolean') grants.push(String(item));
    }
  }
  return grants;
}

/**
 * The scripts in a skill folder (below it, `SKILL.md` aside), in name order, following links only
 * while they stay inside the root. More than {@link MAX_SKILL_FILES} entries: refused, since what
 * is in it cannot all be fingerprinted.
 */
export function skillScripts(rootDir: string, folder: string, document: string): string[] {
  const scripts: string[] = [];
  let seen = 0;
  const walk = (dir: string): void => {
    for (const name of trackedFs.readdirSync(dir).sort()) {
      seen += 1;
      if (seen > MAX_SKILL_FILES) {
        throw new DocumentRefusedError(
          'SKILL_TOO_MANY_FILES',
          `${path.relative(rootDir, folder)}: holds more than ${MAX_SKILL_FILES} files; what it runs cannot be approved`,
        );
      }
      const file = path.join(dir, name);
      if (file === document) continue;
      const real = realpathInside(rootDir, file);
      if (real === null) continue;
      const stats = trackedFs.statSync(real);
      if (stats.isDirectory()) walk(file);
      else if (stats.isFile() && isScript(real, name, stats.mode)) scripts.push(file);
    }
  };
  walk(folder);
  return scripts;
}

function isScript(real: string, name: string, mode: number): boolean {
  if ((mode & 0o111) !== 0) return true;
  const extension = path.extname(name).toLowerCase();
  if (SCRIPT_EXTENSIONS.has(extension)) return true;
  return extension === '' && startsWithShebang(real);
}

function startsWithShebang(file: string): boolean {
  const head = Buffer.alloc(2);
  let fd: number | null = null;
  try {
    fd = trackedFs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    return fs.readSync(fd, head, 0, 2, 0) === 2 && head.toString('latin1') === '#!';
  } catch {
    return false;
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/**
 * Whether a skill just read may run something, for {@link skillKind}'s `mayRun`: it grants tools,
 * or (for a skill that can be held: a plugin's or a project's) its folder holds a script or more
 * files than are looked at. The owner's own skills are never held, so their folders are not looked
 * into when read (10,000 of them open cold); any owner folder skill may run, and
 * {@link skillRunnableParts} says for certain when an audit asks.
 */
export function skillMayRun(root: Root, folder: string | null, document: string, grants: readonly string[]): boolean {
  if (grants.length > 0) return true;
  if (folder === null) return false;
  if (root.plugin === null && root.level === 'global') return true;
  try {
    return skillScripts(root.dir, folder, document).length > 0;
  } catch (error) {
    if (error instanceof DocumentRefusedError) return true;
    throw error;
  }
}

/**
 * What a skill runs: its scripts (their bytes are fingerprinted) and the tools it grants (the
 * definition); null for a skill of text. Its name, description, body and reference documents are
 * text: changing them holds nothing.
 */
export function skillRunnableParts(skill: SkillRecord, root: Root): RunnableParts | null {
  const scripts = skill.folder === null ? [] : skillScripts(root.dir, skill.folder, skill.path);
  if (scripts.length === 0 && skill.toolGrants.length === 0) return null;
  const shown = (file: string): string => path.relative(root.dir, file).split(path.sep).join('/');
  const parts = [
    ...(scripts.length === 0 ? [] : [`scripts ${scripts.map(shown).join(', ')}`]),
    ...(skill.toolGrants.length === 0 ? [] : [`grants tools ${skill.toolGrants.join(', ')}`]),
  ];
  return {
    files: scripts,
    sources: [skill.folder ?? skill.path],
    definition: { toolGrants: skill.toolGrants },
    summary: parts.join('; '),
  };
}
