import type { Dirent } from 'node:fs';
import path from 'node:path';
import { isJsonObject, readJsonInside } from '@loadout/kernel';
import { DocumentRefusedError, type FileReader, nodeFileReader } from '@loadout/files';
import { parsePluginCommit, parsePluginPath, parsePluginRef } from './parsePluginRef.js';
import { MarketplaceRefusedError } from './PluginErrors.js';
import { PluginDefinition } from './PluginDefinition.js';
import { UNLOADED_FIELDS } from './pluginParts.js';
import { pathInside } from './pathInside.js';

/** Where a marketplace keeps its index, in the order Loadout looks: Claude Code's, then Codex's. */
export const MARKETPLACE_INDEXES: readonly { readonly file: string; readonly format: 'claude-code' | 'codex' }[] = [
  { file: '.claude-plugin/marketplace.json', format: 'claude-code' },
  { file: '.agents/plugins/marketplace.json', format: 'codex' },
];

/** Where an entry's plugin is. */
export type MarketplaceSource =
  /** A folder of the marketplace's own repository, `/`-separated; empty for its root. */
  | { readonly kind: 'folder'; readonly path: string }
  /** Another git repository, optionally a folder in it, at a branch or tag, or held at one commit. */
  | { readonly kind: 'git'; readonly url: string; readonly path: string; readonly ref: string | null; readonly sha: string | null }
  | { readonly kind: 'unsupported'; readonly reason: string };

/** One plugin a marketplace lists. */
export interface MarketplaceEntry {
  readonly name: string;
  readonly description: string;
  /** Its keywords, tags and category: what search looks in besides the name and description. */
  readonly keywords: readonly string[];
  readonly source: MarketplaceSource;
  readonly definition: PluginDefinition;
}

export interface MarketplaceIndex {
  readonly format: 'claude-code' | 'codex';
  /** The index file, relative to the marketplace's root. */
  readonly file: string;
  /** The name the index gives the marketplace. */
  readonly name: string | null;
  readonly description: string | null;
  readonly entries: readonly MarketplaceEntry[];
  /** One line per entry that could not be read at all (no name, not an object). */
  readonly skipped: readonly string[];
}

/**
 * Reads a marketplace's index at the root of its repository. Each entry is read on its own: one
 * Loadout cannot install (an npm or archive source, a path leaving the repository) stays listed
 * with the reason, and one it cannot read at all is skipped with a line saying so. Refused when
 * there is no index, or it is not a JSON object with a `plugins` list.
 */
export function readMarketplaceIndex(root: string, files: FileReader = nodeFileReader): MarketplaceIndex {
  const found = MARKETPLACE_INDEXES.find((index) => pathInside(root, index.file, files).type !== 'missing');
  if (found === undefined) {
    const deeper = nestedIndexes(root, files);
    throw new MarketplaceRefusedError(
      'MARKETPLACE_INDEX_MISSING',
      `it has no ${MARKETPLACE_INDEXES.map((index) => index.file).join(' or ')} at its root, so it is not a marketplace` +
        (deeper.length === 0
          ? ''
          : ` (${deeper.join(', ')} ${deeper.length === 1 ? 'is' : 'are'} one folder down, where no client reads an index)`),
    );
  }
  let raw: unknown;
  try {
    raw = readJsonInside(root, path.join(root, found.file), files);
  } catch (error) {
    const reason = error instanceof DocumentRefusedError ? error.message : `${found.file}: ${(error as Error).message}`;
    throw new MarketplaceRefusedError('MARKETPLACE_INDEX_INVALID', `cannot read its index: ${reason}`);
  }
  if (!isJsonObject(raw) || !Array.isArray(raw.plugins)) {
    throw new MarketplaceRefusedError('MARKETPLACE_INDEX_INVALID', `${found.file} must be a JSON object with a "plugins" list`);
  }
  const metadata = isJsonObject(raw.metadata) ? raw.metadata : {};
  const pluginRoot = typeof metadata.pluginRoot === 'string' ? metadata.pluginRoot : null;
  const entries: MarketplaceEntry[] = [];
  const skipped: string[] = [];
  raw.plugins.forEach((item: unknown, index: number) => {
    if (!isJsonObject(item) || typeof item.name !== 'string' || item.name === '') {
      skipped.push(`entry ${index + 1} has no name and is skipped`);
      return;
    }
    entries.push(readEntry(item, found.format, pluginRoot));
  });
  const description =
    typeof raw.description === 'string' ? raw.description : typeof metadata.description === 'string' ? metadata.description : null;
  return { format: found.format, file: found.file, name: typeof raw.name === 'string' ? raw.name : null, description, entries, skipped };
}

function readEntry(item: Record<string, unknown>, format: 'claude-code' | 'codex', pluginRoot: string | null): MarketplaceEntry {
  const name = item.name as string;
  const source = readSource(item.source, pluginRoot, item);
  const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : []);
  const category = typeof item.category === 'string' ? [item.category] : [];
  const parts = Object.keys(UNLOADED_FIELDS).filter((field) => item[field] !== undefined);
  const skills = typeof item.skills === 'string' || Array.isArray(item.skills) ? (item.skills as string | string[]) : undefined;
  const definition = PluginDefinition.parse({
    format,
    strict: item.strict !== false,
    ...(skills === undefined ? {} : { skills: typeof skills === 'string' ? skills : strings(skills) }),
    ...(item.mcpServers === undefined ? {} : { mcpServers: item.mcpServers }),
    parts,
    atMarketplaceRoot: source.kind === 'folder' && source.path === '',
  });
  return {
    name,
    description: typeof item.description === 'string' ? item.description : '',
    keywords: [...strings(item.keywords), ...strings(item.tags), ...category],
    source,
    definition,
  };
}

/**
 * An entry's `source`: a `./` folder (or a bare name under `metadata.pluginRoot`), or an object
 * of kind `github`, `url`, `git-subdir` or `local` (Codex). npm, archive and command sources, and
 * a Codex entry not available for installation, are listed but cannot be installed.
 */
function readSource(value: unknown, pluginRoot: string | null, item: Record<string, unknown>): MarketplaceSource {
  const policy = isJsonObject(item.policy) ? item.policy : {};
  if (policy.installation === 'NOT_AVAILABLE')
    return { kind: 'unsupported', reason: 'its marketplace marks it not available for installation' };
  try {
    if (typeof value === 'string') return folderSource(value, pluginRoot);
    if (!isJsonObject(value)) return { kind: 'unsupported', reason: 'its source is neither a path nor an object' };
    const ref = typeof value.ref === 'string' ? parsePluginRef(value.ref) : null;
    const sha = typeof value.sha === 'string' ? parsePluginCommit(value.sha, 'its marketplace entry') : null;
    const subdir = typeof value.path === 'string' ? parsePluginPath(value.path, 'its marketplace entry') : '';
    switch (value.source) {
      case 'local':
        return typeof value.path === 'string'
          ? folderSource(value.path, null)
          : { kind: 'unsupported', reason: 'its local source has no path' };
      case 'github':
        if (typeof value.repo !== 'string' || !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(value.repo))
          return { kind: 'unsupported', reason: 'its github source has no owner/repo' };
        return { kind: 'git', url: `https://github.com/${value.repo.replace(/\.git$/, '')}.git`, path: subdir, ref, sha };
      case 'url':
      case 'git-subdir': {
        if (typeof value.url !== 'string' || value.url === '')
          return { kind: 'unsupported', reason: `its ${value.source} source has no url` };
        // A relative "url" is a folder of the marketplace itself.
        if (value.url.startsWith('./') || value.url === '.') return folderSource(`./${path.posix.join(value.url, subdir)}`, null);
        const url = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(value.url)
          ? `https://github.com/${value.url.replace(/\.git$/, '')}.git`
          : value.url;
        return { kind: 'git', url, path: subdir, ref, sha };
      }
      default:
        return {
          kind: 'unsupported',
          reason: `its source kind ${JSON.stringify(String(value.source)).slice(0, 40)} is not one Loadout installs (folders and git repositories are)`,
        };
    }
  } catch (error) {
    return { kind: 'unsupported', reason: (error as Error).message };
  }
}

function folderSource(value: string, pluginRoot: string | null): MarketplaceSource {
  if (value.startsWith('./') || value === '.') return { kind: 'folder', path: parsePluginPath(value, 'its marketplace entry') };
  if (!value.includes('/') && !value.includes('\\') && value !== '..') {
    const base = pluginRoot === null ? '' : parsePluginPath(pluginRoot, 'the marketplace');
    return { kind: 'folder', path: parsePluginPath(base === '' ? value : `${base}/${value}`, 'its marketplace entry') };
  }
  return {
    kind: 'unsupported',
    reason: `its source ${JSON.stringify(value.slice(0, 80))} must start with ./ and stay inside the marketplace`,
  };
}

/** Index files one folder below the root: named when a repository keeps its index where no client looks. */
function nestedIndexes(root: string, files: FileReader): string[] {
  let children: Dirent[];
  try {
    children = files.readdirEntries(root);
  } catch {
    return [];
  }
  return children
    .filter((child) => child.isDirectory() && child.name !== '.git')
    .flatMap((child) => MARKETPLACE_INDEXES.map((index) => `${child.name}/${index.file}`))
    .filter((relative) => pathInside(root, relative, files).type === 'file')
    .sort();
}
