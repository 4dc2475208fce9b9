import path from 'node:path';
import { type Diagnostic, readMarkdownInside, type RootLayoutSource } from '@loadout/kernel';
import { type FileReader, nodeFileReader } from '@loadout/files';
import { manifestPath, pathInside, rootNames } from './pathInside.js';

/** Where a plugin's skills come from, with what was skipped on the way. */
export interface SkillSources {
  readonly sources: readonly RootLayoutSource[];
  readonly diagnostics: readonly Diagnostic[];
  /** Folders of `skills/` that are not skills themselves (a group one level too deep), for the stray search. */
  readonly groups?: readonly string[];
}

const SKILLS = 'skills';
const SKILL_FILE = 'SKILL.md';
const MAX_COMPATIBILITY = 500;

/**
 * Agent Plugins discovery: each immediate child folder of `skills/` holding a regular file named
 * exactly `SKILL.md`, never deeper. `skills` that is not a folder (or leads outside the root)
 * makes skills invalid for this plugin; a skill whose folder or `SKILL.md` leads outside the root,
 * or that breaks the Agent Skills rules no runtime tolerates (name = folder name, name rules, a
 * description), is skipped and reported. The others load.
 */
export function agentPluginsSkills(root: string, plugin: string, files: FileReader): SkillSources {
  const diagnostics: Diagnostic[] = [];
  const report = (code: string, where: string, message: string): void => {
    diagnostics.push({ code, severity: 'warning', path: path.join(root, where), message: `plugin ${plugin}: ${message}` });
  };
  const folder = pathInside(root, SKILLS, files);
  if (folder.type === 'missing') return { sources: [], diagnostics };
  if (folder.type !== 'folder') {
    report(
      'PLUGIN_SKILLS_INVALID',
      SKILLS,
      `no skill is loaded: skills ${folder.type === 'outside' ? 'leads outside the plugin' : 'is not a folder'}`,
    );
    return { sources: [], diagnostics };
  }
  const sources: RootLayoutSource[] = [];
  const groups: string[] = [];
  for (const child of files.readdir(folder.real).sort()) {
    const relative = `${SKILLS}/${child}`;
    const dir = pathInside(root, relative, files);
    if (dir.type === 'outside') {
      report('PATH_OUTSIDE_ROOT', relative, `skill ${relative} is skipped: it is a link that leads outside the plugin`);
      continue;
    }
    if (dir.type !== 'folder') continue;
    if (!files.readdir(dir.real).includes(SKILL_FILE)) {
      groups.push(relative);
      continue;
    }
    const file = pathInside(root, `${relative}/${SKILL_FILE}`, files);
    if (file.type === 'outside') {
      report(
        'PATH_OUTSIDE_ROOT',
        `${relative}/${SKILL_FILE}`,
        `skill ${relative} is skipped: its SKILL.md is a link that leads outside the plugin`,
      );
      continue;
    }
    if (file.type !== 'file') continue;
    const problem = agentSkillProblem(root, `${relative}/${SKILL_FILE}`, child, files);
    if (problem !== null) {
      report('PLUGIN_SKILL_SKIPPED', `${relative}/${SKILL_FILE}`, `skill ${relative} is skipped: ${problem}`);
      continue;
    }
    sources.push({ entry: relative });
  }
  return { sources, diagnostics, groups };
}

/** Why a `SKILL.md` does not conform to the Agent Skills rules, or null when it does. */
function agentSkillProblem(root: string, relative: string, folderName: string, files: FileReader): string | null {
  let document;
  try {
    document = readMarkdownInside(root, path.join(root, relative), files);
  } catch (error) {
    return (error as Error).message;
  }
  if (document === null || !document.hasFrontmatter) return 'it has no frontmatter';
  const { name, description, compatibility } = document.frontmatter;
  if (typeof name !== 'string' || name.trim() === '') return 'its frontmatter has no name';
  const normal = name.trim().normalize('NFKC');
  if (normal.length > 64 || normal !== normal.toLowerCase() || !/^[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*$/u.test(normal)) {
    return `name ${JSON.stringify(name.slice(0, 80))} breaks the Agent Skills rules (1-64 lower-case letters, digits and single hyphens)`;
  }
  if (normal !== folderName.normalize('NFKC'))
    return `name ${JSON.stringify(name.slice(0, 80))} is not the folder's name ${JSON.stringify(folderName)}`;
  // A description over 1,024 characters breaks the Agent Skills rules, but Claude Code and Codex
  // load it: the skill loads, and the session warns that it is not portable (SKILL_NOT_PORTABLE).
  if (typeof description !== 'string' || description.trim() === '') return 'its description is missing or empty';
  if (compatibility !== undefined && (typeof compatibility !== 'string' || compatibility.length > MAX_COMPATIBILITY)) {
    return `compatibility must be a string of at most ${MAX_COMPATIBILITY} characters`;
  }
  return null;
}

/**
 * Skills of a Claude Code, Codex or Cursor plugin (and of a plugin with no manifest): the
 * `skills/` folder, plus each path a manifest or marketplace entry lists (`./x`, or `.` for the
 * root). A listed path holding `SKILL.md` is one skill; any other is a folder of skills. With
 * `complete`, the listed paths are the whole set (a marketplace entry that is its plugin's whole
 * definition), unless none of them exists. With no `skills/` and nothing listed, a `SKILL.md` at
 * the root makes a one-skill plugin.
 */
export function vendorSkillSources(
  root: string,
  plugin: string,
  listed: unknown,
  file: string,
  complete: boolean,
  files: FileReader,
): SkillSources {
  const diagnostics: Diagnostic[] = [];
  const report = (message: string): void => {
    diagnostics.push({ code: 'PLUGIN_SKILLS_INVALID', severity: 'warning', path: file, message: `plugin ${plugin}: ${message}` });
  };
  const paths: string[] = [];
  if (listed !== undefined) {
    const items = typeof listed === 'string' ? [listed] : Array.isArray(listed) ? listed : null;
    if (items === null) report(`"skills" in ${path.basename(file)} must be a path or a list of paths; it is ignored`);
    for (const item of items ?? []) {
      const relative = typeof item === 'string' ? manifestPath(item) : null;
      if (relative === null)
        report(`skills path ${JSON.stringify(item)?.slice(0, 80)} must start with ./ and stay inside the plugin; it is ignored`);
      else if (!paths.includes(relative)) paths.push(relative);
    }
  }
  const listedSources: RootLayoutSource[] = [];
  for (const relative of paths) {
    const found = pathInside(root, relative, files);
    if (found.type === 'missing') continue;
    if (found.type !== 'folder') {
      report(`skills path ./${relative} ${found.type === 'outside' ? 'leads outside the plugin' : 'is not a folder'}; it is ignored`);
      continue;
    }
    const isSkill = pathInside(root, path.posix.join(relative, SKILL_FILE), files).type === 'file';
    // The default folder, or the root that is not itself a skill: the usual scan, read anyway.
    if ((relative === SKILLS || relative === '.') && !isSkill) continue;
    listedSources.push(isSkill ? { entry: relative } : { folder: relative });
  }
  if (complete && listedSources.length > 0) return { sources: listedSources, diagnostics };
  const defaults: RootLayoutSource[] = [];
  const skillsFolder = pathInside(root, SKILLS, files).type;
  if (skillsFolder === 'folder' || skillsFolder === 'outside') defaults.push({ folder: SKILLS });
  else if (paths.length === 0 && pathInside(root, SKILL_FILE, files).type === 'file') defaults.push({ entry: '.' });
  // A manifest that lists each skill of the default folder (`./skills/box`) names what that folder's
  // scan reads anyway: read once, never a skill shadowing itself.
  const readByDefault = (source: RootLayoutSource): boolean =>
    defaults.length > 0 &&
    'folder' in (defaults[0] as RootLayoutSource) &&
    'entry' in source &&
    path.posix.dirname(source.entry) === SKILLS;
  return { sources: [...defaults, ...listedSources.filter((source) => !readByDefault(source))], diagnostics };
}

/** How many stray `SKILL.md` paths a message names before it says "and N more". */
const SHOWN_STRAYS = 10;
/** How deep below a plugin's root, and through how many folders, the deep search for stray skills goes. */
const STRAY_DEPTH = 4;
const STRAY_FOLDERS = 5000;
const NEVER_SEARCHED = new Set(['.git', 'node_modules']);

/** Where to look for skills no layout loads. */
export interface StraySearch {
  /**
   * Walk the whole root (bounded, never through a link): for a repository that is a marketplace,
   * or one refused as not a plugin. Otherwise only the likely places are looked at, so a session
   * open stays cheap: folders at the top of the root, and one level into a skills folder's hidden
   * folders (`skills/.curated`) and into `groups`.
   */
  readonly deep: boolean;
  readonly groups?: readonly string[];
  /** Appended to the message. */
  readonly hint?: string;
}

/**
 * `SKILL.md` files where no layout Loadout reads puts them — one level too deep under a skills
 * folder (`skills/.curated/x/SKILL.md`), in a folder at the top of the root, inside a plugin folder
 * of a marketplace repository (`plugins/x/skills/y/SKILL.md`). One warning that names them, so the
 * owner knows why they are absent. A skills folder's immediate children are the layout's own
 * (loaded, or reported on their own).
 */
export function straySkills(
  root: string,
  plugin: string,
  sources: readonly RootLayoutSource[],
  search: StraySearch,
  files: FileReader = nodeFileReader,
): Diagnostic[] {
  const covered = new Set<string>();
  const folders = new Set<string>();
  for (const source of sources) {
    if ('folder' in source) folders.add(source.folder);
    if ('entry' in source) covered.add(source.entry);
  }
  const strays = search.deep
    ? walkForSkills(root, folders, covered, files)
    : lookForSkills(root, folders, covered, search.groups ?? [], files);
  strays.sort();
  if (strays.length === 0) return [];
  const shown =
    strays.slice(0, SHOWN_STRAYS).join(', ') + (strays.length > SHOWN_STRAYS ? ` and ${strays.length - SHOWN_STRAYS} more` : '');
  return [
    {
      code: 'PLUGIN_SKILLS_NOT_IN_LAYOUT',
      severity: 'warning',
      path: root,
      subjects: strays,
      message: `plugin ${plugin}: ${strays.length} SKILL.md ${strays.length === 1 ? 'file is' : 'files are'} where no layout Loadout reads puts a skill (skills/<name>/SKILL.md or a listed skills path), so ${strays.length === 1 ? 'it is' : 'they are'} not loaded: ${shown}${search.hint ?? ''}`,
    },
  ];
}

/** The folders directly in `relative` (links not followed), by name; empty when it cannot be read. */
function foldersIn(root: string, relative: string, files: FileReader): string[] {
  try {
    return files
      .readdirEntries(path.join(root, relative))
      .filter((entry) => entry.isDirectory() && !NEVER_SEARCHED.has(entry.name))
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

const hiddenFoldersSeen = new Map<string, { readonly mtimeMs: number; readonly names: readonly string[] }>();

/**
 * The hidden folders in `folder` (`.curated`, `.system` …). A skills folder may hold thousands of
 * entries and only these matter here, so what was found is kept while the folder's modification
 * time (which any added, removed or renamed entry changes) stays the same.
 */
function hiddenFolders(folder: string, files: FileReader): readonly string[] {
  let mtimeMs: number;
  try {
    mtimeMs = files.stat(folder).mtimeMs;
  } catch {
    return [];
  }
  const seen = hiddenFoldersSeen.get(folder);
  if (seen !== undefined && seen.mtimeMs === mtimeMs) return seen.names;
  let names: string[];
  try {
    names = files.readdir(folder).filter((name) => name.startsWith('.') && isFolder(folder, name, files));
  } catch {
    names = [];
  }
  hiddenFoldersSeen.set(folder, { mtimeMs, names });
  return names;
}

function namesIn(root: string, relative: string, files: FileReader): string[] {
  try {
    return files.readdir(path.join(root, relative));
  } catch {
    return [];
  }
}

function isFolder(root: string, relative: string, files: FileReader): boolean {
  try {
    return files.lstat(path.join(root, relative)).isDirectory();
  } catch {
    return false;
  }
}

function holdsSkillFile(root: string, relative: string, files: FileReader): boolean {
  try {
    return files.lstat(path.join(root, relative, SKILL_FILE)).isFile();
  } catch {
    return false;
  }
}

function lookForSkills(
  root: string,
  folders: ReadonlySet<string>,
  covered: ReadonlySet<string>,
  groups: readonly string[],
  files: FileReader,
): string[] {
  const strays: string[] = [];
  const tops = new Set([...folders].map((folder) => folder.split('/')[0]));
  for (const child of rootNames(root, files) ?? namesIn(root, '', files)) {
    if (
      !child.startsWith('.') &&
      !tops.has(child) &&
      !covered.has(child) &&
      !NEVER_SEARCHED.has(child) &&
      holdsSkillFile(root, child, files)
    )
      strays.push(`${child}/${SKILL_FILE}`);
  }
  // Names only (no file types): a skills folder may hold thousands of entries, and only hidden ones matter here.
  const deeper = [...groups];
  for (const folder of folders) for (const child of hiddenFolders(path.join(root, folder), files)) deeper.push(`${folder}/${child}`);
  for (const group of deeper) {
    for (const child of foldersIn(root, group, files)) {
      const relative = `${group}/${child}`;
      if (!covered.has(relative) && holdsSkillFile(root, relative, files)) strays.push(`${relative}/${SKILL_FILE}`);
    }
  }
  return strays;
}

function walkForSkills(root: string, folders: ReadonlySet<string>, covered: ReadonlySet<string>, files: FileReader): string[] {
  const strays: string[] = [];
  let budget = STRAY_FOLDERS;
  const walk = (relative: string, depth: number): void => {
    if (budget-- <= 0) return;
    const isOwnSkill = covered.has(relative) || folders.has(path.posix.dirname(relative));
    if (relative !== '' && !isOwnSkill && holdsSkillFile(root, relative, files)) strays.push(`${relative}/${SKILL_FILE}`);
    if (depth >= STRAY_DEPTH || (isOwnSkill && relative !== '')) return;
    for (const child of foldersIn(root, relative, files)) walk(relative === '' ? child : `${relative}/${child}`, depth + 1);
  };
  walk('', 0);
  return strays;
}

/**
 * A collection: a folder inside a repository (installed with `--path skills/.curated`) whose own
 * folders are skills, with no manifest, no `skills/` and no `SKILL.md` of its own. Each of those
 * folders is one entry of the layout; a repository's root (it holds `.git`) is never read this way,
 * so a repository's top-level folders do not become skills by accident. Empty when it is not one.
 */
export function collectionSkills(root: string, files: FileReader = nodeFileReader): RootLayoutSource[] {
  if (pathInside(root, '.git', files).type !== 'missing') return [];
  return foldersIn(root, '', files)
    .filter((name) => !name.startsWith('.') && holdsSkillFile(root, name, files))
    .sort()
    .map((name) => ({ entry: name }));
}
