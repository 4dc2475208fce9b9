import crypto from 'node:crypto';
import path from 'node:path';
import { redactCredentials } from '@loadout/kernel';
import type { PluginEntry } from './PluginRegistry.js';
import { trackedFs } from '@loadout/files';

/**
 * Plugins from one repository share one clone in `plugins/`: a marketplace of 91 plugins is one
 * clone of its repository, not 91, and one fetch updates them all. Each plugin is its folder inside
 * that clone, read in place. A shared clone's folder starts with `_`, which no plugin name can, so
 * it never takes a plugin's `plugins/<name>`. A plugin that is a whole repository installed by URL
 * keeps a clone of its own in `plugins/<name>`, as every plugin did before clones were shared.
 */
export const SHARED_CLONE_PREFIX = '_';

/** What makes two installs able to share one clone: the same repository, followed the same way. */
export interface CloneKey {
  /** The URL with any credential removed. */
  readonly url: string;
  /** The branch or tag installed, or null for the remote's default branch. */
  readonly ref: string | null;
  /** Held at one commit (a marketplace entry's `sha`): only plugins held at that very commit share it. */
  readonly pinned: boolean;
}

/**
 * Whether an install goes into its repository's shared clone: a folder of the repository (`--path`,
 * a marketplace's folder entry) or any marketplace entry, which are the installs that come many to
 * a repository. A whole repository installed by URL is one plugin to a repository.
 */
export function goesIntoSharedClone(subdir: string, fromMarketplace: boolean): boolean {
  return subdir !== '' || fromMarketplace;
}

/**
 * The installed plugins whose shared clone an install of `key` can join: same URL (as the registry
 * shows it, redacted: the caller checks the clone's own origin) and ref, and
 * followed the same way (a tag's clone is held too, so a later install of that tag joins it).
 * With `commit`, only a clone at that commit (a lock file's or a marketplace `sha`).
 */
export function clonesToJoin(rows: readonly PluginEntry[], key: CloneKey, commit: string | null): PluginEntry[] {
  return rows.filter(
    (row) =>
      row.clone !== null &&
      redactCredentials(row.url) === redactCredentials(key.url) &&
      row.ref === key.ref &&
      (row.pinned === key.pinned || (row.pinned && key.ref !== null)) &&
      (commit === null || row.commit === commit),
  );
}

/** The plugins that are folders of the shared clone `clone` (none for a clone of one's own). */
export function pluginsInClone(rows: readonly PluginEntry[], clone: string | null): PluginEntry[] {
  return clone === null ? [] : rows.filter((row) => row.clone === clone);
}

/**
 * Plugins installed before clones were shared, each with a clone of its own, that would now be
 * folders of a shared one: grouped by repository, ref, hold and commit (one clone is at one commit).
 */
export function ownClonesToShare(rows: readonly PluginEntry[]): PluginEntry[][] {
  const groups = new Map<string, PluginEntry[]>();
  for (const row of rows) {
    if (row.clone !== null || !goesIntoSharedClone(row.path, row.marketplace !== null)) continue;
    const key = JSON.stringify([row.url, row.ref, row.pinned, row.commit]);
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  return [...groups.values()];
}

/**
 * A new shared clone's folder name: `_<repository base name>-<10 hex of the key>`, with `-2`, `-3`…
 * when one of that name is there already (a second clone of the repository at another commit).
 */
export function newSharedCloneFolder(pluginsDir: string, baseName: string, key: CloneKey): string {
  const base =
    baseName
      .toLowerCase()
      .replace(/[^a-z0-9.-]+/g, '-')
      .replace(/^[.-]+|[.-]+$/g, '')
      .slice(0, 40) || 'repository';
  const hash = crypto
    .createHash('sha256')
    .update(JSON.stringify([key.url, key.ref, key.pinned]))
    .digest('hex')
    .slice(0, 10);
  const stem = `${SHARED_CLONE_PREFIX}${base}-${hash}`;
  for (let n = 1; ; n++) {
    const folder = n === 1 ? stem : `${stem}-${n}`;
    if (trackedFs.lstatSync(path.join(pluginsDir, folder), { throwIfNoEntry: false }) === undefined) return folder;
  }
}

/**
 * The paths of its repository a plugin is made of, `/`-separated and relative to the clone: its
 * folder, or, for a marketplace entry that is its plugin's whole definition (`strict: false`), the
 * skill folders and server files the entry lists. What `plugins outdated` compares between commits,
 * so a commit that touches only another plugin's folder leaves this one current. `''` is the whole
 * repository.
 */
export function pluginPaths(entry: Pick<PluginEntry, 'path' | 'definition'>): string[] {
  const definition = entry.definition;
  if (definition === null || definition.strict) return [entry.path];
  const listed = [...asList(definition.skills), ...asList(definition.mcpServers).filter((item) => typeof item === 'string')];
  const paths = listed.flatMap((item) => {
    const joined = path.posix.normalize(path.posix.join(entry.path, item as string));
    return joined === '..' || joined.startsWith('../') ? [] : [joined === '.' ? '' : joined.replace(/\/$/, '')];
  });
  return paths.length === 0 ? [entry.path] : [...new Set(paths)].sort();
}

/** Whether `file` (relative to the clone) lies in one of `paths`. */
export function inPluginPaths(paths: readonly string[], file: string): boolean {
  return paths.some((p) => p === '' || file === p || file.startsWith(`${p}/`));
}

function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}
