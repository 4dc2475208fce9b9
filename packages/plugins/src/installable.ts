import path from 'node:path';
import { PluginRepositoryRefusedError } from './PluginErrors.js';
import type { PluginContents } from './pluginContents.js';
import { pathInside } from './pathInside.js';
import { straySkills } from './pluginSkills.js';
import { MARKETPLACE_INDEXES, type MarketplaceIndex, readMarketplaceIndex } from './readMarketplaceIndex.js';

/** A folder of a repository whose own folders are skills (`skills/.curated`): installable with `--path`. */
export interface SkillCollection {
  /** Relative to the repository, `/`-separated. */
  readonly path: string;
  /** The skill folders' names, sorted. */
  readonly skills: readonly string[];
}

/** One plugin a repository's marketplace index lists. */
export interface ListedPlugin {
  readonly name: string;
  readonly description: string;
  /** Its folder in the repository; null when it lives in another repository. */
  readonly path: string | null;
}

/** What `plugins install SOURCE --list` shows: what in a repository can be installed, read from a clone that is then removed. */
export interface InstallableListing {
  readonly source: string;
  readonly commit: string;
  /** The repository (or its `--path` folder) installed as one plugin: what it would load. */
  readonly plugin: PluginContents;
  readonly collections: readonly SkillCollection[];
  /** The marketplace index at the repository's root, when it has one. */
  readonly marketplace: { readonly file: string; readonly name: string | null; readonly plugins: readonly ListedPlugin[] } | null;
}

/**
 * The folders under `root` that hold skill folders no layout of the plugin reads, each with its
 * skills: the bounded deep search for stray skills, grouped by the folder they sit in. `prefix` is
 * the root's own path in the repository (`--path`), so each path is one `--path` takes.
 */
export function skillCollectionsIn(root: string, prefix: string): SkillCollection[] {
  const strays = straySkills(root, '', [], { deep: true })[0]?.subjects ?? [];
  const byFolder = new Map<string, string[]>();
  for (const file of strays) {
    const skill = path.posix.dirname(file);
    if (skill === '.') continue;
    const folder = path.posix.dirname(skill);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), path.posix.basename(skill)]);
  }
  return [...byFolder]
    .map(([folder, skills]) => ({ path: joinPath(prefix, folder === '.' ? '' : folder), skills: skills.sort() }))
    .filter((collection) => collection.path !== '')
    .sort((a, b) => a.path.localeCompare(b.path));
}

/** The marketplace index at `root` as `--list` shows it; null when there is none or it cannot be read. */
export function listedMarketplace(root: string): InstallableListing['marketplace'] {
  if (!MARKETPLACE_INDEXES.some((candidate) => pathInside(root, candidate.file).type === 'file')) return null;
  let index: MarketplaceIndex;
  try {
    index = readMarketplaceIndex(root);
  } catch {
    return null;
  }
  return {
    file: index.file,
    name: index.name,
    plugins: index.entries.map((entry) => ({
      name: entry.name,
      description: entry.description,
      path: entry.source.kind === 'folder' ? entry.source.path : null,
    })),
  };
}

/**
 * Why an install that would load nothing is refused, with the fix first: a marketplace is added
 * as one, a repository of skill collections is installed a collection at a time, anything else
 * names what it lacks. `--allow-empty` installs it anyway.
 */
export function emptyInstallRefusal(
  at: { readonly root: string; readonly source: string; readonly subdir: string; readonly shown: string },
  contents: PluginContents,
  kindFolders: readonly string[],
): PluginRepositoryRefusedError {
  const { root, source, subdir, shown } = at;
  const anyway = 'or install it as it is with --allow-empty';
  const marketplace = listedMarketplace(root);
  if (marketplace !== null) {
    return new PluginRepositoryRefusedError(
      'PLUGIN_IS_A_MARKETPLACE',
      `this is a marketplace: \`loadout marketplace add ${source}\`, then \`loadout plugins install NAME@MARKETPLACE\` ` +
        `(${shown} loads nothing as one plugin; its ${marketplace.file} lists ${marketplace.plugins.length} plugins; ` +
        `\`loadout plugins install ${source} --list\` shows them; ${anyway})`,
    );
  }
  const collections = skillCollectionsIn(root, subdir);
  if (collections.length > 0) {
    const fixes = collections
      .slice(0, 3)
      .map(
        (collection) => `\`loadout plugins install ${source} --path ${collection.path}\` (${countOf(collection.skills.length, 'skill')})`,
      );
    return new PluginRepositoryRefusedError(
      'PLUGIN_IS_A_COLLECTION',
      `install a collection of it: ${fixes.join(' or ')}; \`loadout plugins install ${source} --list\` shows every one ` +
        `(${shown} loads nothing itself: its skills are in folders no plugin layout reads; ${anyway})`,
    );
  }
  const why = contents.diagnostics.map((diagnostic) => diagnostic.message);
  return new PluginRepositoryRefusedError(
    'PLUGIN_NOT_A_PLUGIN',
    `${shown} is not a plugin: it loads nothing (no plugin manifest, no SKILL.md, and no capability in any of the folders ${kindFolders.join(', ')})` +
      `${why.length === 0 ? '' : `; ${why.slice(0, 3).join('; ')}`}; ${anyway}`,
  );
}

function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function joinPath(prefix: string, relative: string): string {
  return [prefix, relative].filter((part) => part !== '').join('/');
}
