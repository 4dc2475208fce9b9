import crypto from 'node:crypto';
import path from 'node:path';
import { Places, redactCredentials, token } from '@loadout/kernel';
import { isLoadoutError, trackedFs } from '@loadout/files';
import { inject, injectable } from 'tsyringe';
import { MarketplaceRegistry, type MarketplaceRow, marketplacesDir } from './MarketplaceRegistry.js';
import { moveWithRecord } from './moveWithRecord.js';
import { PLUGIN_NAME_PATTERN, parsePluginName } from './parsePluginName.js';
import { parsePluginRef } from './parsePluginRef.js';
import { parsePluginSource } from './parsePluginSource.js';
import {
  MarketplaceExistsError,
  MarketplaceNotFoundError,
  MarketplaceRefusedError,
  PluginInputRefusedError,
  PluginRepositoryRefusedError,
  PluginUpdateRefusedError,
} from './PluginErrors.js';
import type { PluginGit } from './PluginGit.js';
import { GitPluginManagerParts, type InstallPluginOptions, type PluginInstall, PluginManager, pluginGit } from './PluginManager.js';
import { makeStaging, sweepStale, TRASH_PREFIX } from './stagingFolders.js';
import { PluginRegistry } from './PluginRegistry.js';
import { type MarketplaceEntry, type MarketplaceIndex, type MarketplaceSource, readMarketplaceIndex } from './readMarketplaceIndex.js';

/** An added marketplace as `marketplace list` shows it. */
export interface MarketplaceSummary extends MarketplaceRow {
  /** Which index it has, or null when it cannot be read at its current commit. */
  readonly format: 'claude-code' | 'codex' | null;
  readonly description: string | null;
  /** How many plugins it lists. */
  readonly plugins: number;
  /** Entries it could not read, or why the index cannot be read. */
  readonly problems: readonly string[];
}

/** One plugin a search found. */
export interface MarketplaceHit {
  /** What `plugins install` takes: `name@marketplace`. */
  readonly id: string;
  readonly name: string;
  readonly marketplace: string;
  readonly description: string;
  readonly keywords: readonly string[];
  /** Where it would be installed from, in words. */
  readonly source: string;
  readonly installable: boolean;
  /** Why it cannot be installed, when it cannot. */
  readonly reason: string | null;
  /** The installed plugin that came from this entry, if any. */
  readonly installed: string | null;
}

/** What `marketplace update` did to one marketplace. */
export interface MarketplaceUpdate {
  readonly name: string;
  readonly status: 'updated' | 'up-to-date' | 'pinned';
  readonly from: string;
  readonly to: string;
}

/**
 * Marketplaces: index repositories (Claude Code `.claude-plugin/marketplace.json`, Codex
 * `.agents/plugins/marketplace.json`) cloned into `<dataDir>/marketplaces/<name>`, searched, and
 * installed from by `name@marketplace`. An installed plugin is a folder of its repository's clone
 * in `plugins/` (one clone per repository, shared by the plugins installed from it: see
 * sharedClones.ts), with its own lock entry, and removing the marketplace leaves it in place.
 */
export interface MarketplaceManager {
  add(url: string, options?: { name?: string; ref?: string }): Promise<MarketplaceSummary>;
  list(): MarketplaceSummary[];
  /** Follows each named marketplace (every one when none is named) to its upstream branch. */
  update(names?: readonly string[]): Promise<MarketplaceUpdate[]>;
  remove(name: string): { name: string; dir: string };
  /** Every entry of every marketplace whose name, description or keywords hold each word of `text`. */
  search(text: string): MarketplaceHit[];
  /** Installs the entry `name@marketplace` from wherever its source says. */
  install(id: string, options?: { name?: string; allowEmpty?: boolean }): Promise<PluginInstall>;
}
export const MarketplaceManager = token<MarketplaceManager>('plugins.marketplaceManager');

const ENTRY_ID = /^([a-z0-9][a-z0-9.-]{0,63})@([a-z0-9][a-z0-9.-]{0,63})$/;

/** Whether `text` reads as `name@marketplace` rather than a URL or a path. */
export function isMarketplaceEntryId(text: string): boolean {
  return ENTRY_ID.test(text);
}

@injectable()
export class GitMarketplaceManager implements MarketplaceManager {
  constructor(
    @inject(MarketplaceRegistry) private readonly registry: MarketplaceRegistry,
    @inject(PluginRegistry) private readonly plugins: PluginRegistry,
    @inject(PluginManager) private readonly manager: PluginManager,
    @inject(Places) private readonly places: Places,
    @inject(GitPluginManagerParts) private readonly parts: GitPluginManagerParts,
  ) {}

  async add(url: string, options: { name?: string; ref?: string } = {}): Promise<MarketplaceSummary> {
    const source = parsePluginSource(url, this.parts.cwd());
    const requested = options.name === undefined ? null : parseMarketplaceName(options.name, '--name');
    const ref = options.ref === undefined ? null : parsePluginRef(options.ref);
    if (requested !== null) this.assertNameFree(requested);
    const parent = marketplacesDir(this.places.dataDir);
    trackedFs.mkdirSync(parent, { recursive: true });
    sweepStale(parent);
    const staging = makeStaging(parent);
    let placed = false;
    try {
      const allowFileProtocol = source.transport === 'file';
      await this.git(parent, allowFileProtocol).clone(source.url, staging, ref);
      const clone = this.git(staging, allowFileProtocol);
      const commit = await clone.commitOf('HEAD');
      if (await clone.hasSubmodules(commit)) {
        throw new PluginRepositoryRefusedError(
          'PLUGIN_HAS_SUBMODULES',
          `${source.displayUrl} has git submodules; a marketplace is refused with them`,
        );
      }
      const index = readIndex(staging, source.displayUrl);
      const name =
        requested ??
        parseMarketplaceName(
          index.name ?? source.baseName,
          index.name === null ? 'the repository name; give --name' : `${index.file}; give --name`,
        );
      moveWithRecord({
        from: staging,
        to: path.join(parent, name),
        transaction: (work) => this.registry.transaction(work),
        check: () => this.assertNameFree(name),
        record: () => this.registry.add({ name, url: source.displayUrl, ref, commit }),
      });
      placed = true;
      return this.summary(this.require(name));
    } finally {
      if (!placed) trackedFs.rmSync(staging, { recursive: true, force: true });
    }
  }

  list(): MarketplaceSummary[] {
    return this.registry.list().map((row) => this.summary(row));
  }

  async update(names: readonly string[] = []): Promise<MarketplaceUpdate[]> {
    const rows = names.length === 0 ? this.registry.list() : [...new Set(names)].map((name) => this.require(name));
    const updates: MarketplaceUpdate[] = [];
    const refusals: string[] = [];
    for (const row of rows) {
      try {
        updates.push(await this.updateOne(row));
      } catch (error) {
        if (!isLoadoutError(error) || rows.length === 1) throw error;
        refusals.push(error.message);
      }
    }
    if (refusals.length > 0) {
      throw new PluginUpdateRefusedError(
        'MARKETPLACE_UPDATE_INCOMPLETE',
        `${refusals.length} of ${rows.length} marketplaces were not updated: ${refusals.join('; ')}`,
      );
    }
    return updates;
  }

  remove(name: string): { name: string; dir: string } {
    const row = this.require(name);
    const trash = path.join(marketplacesDir(this.places.dataDir), `${TRASH_PREFIX}${name}-${crypto.randomBytes(4).toString('hex')}`);
    const moved = moveWithRecord({
      from: row.dir,
      to: trash,
      transaction: (work) => this.registry.transaction(work),
      record: () => this.registry.remove(name),
      optional: true,
    });
    if (moved) trackedFs.rmSync(trash, { recursive: true, force: true });
    return { name, dir: row.dir };
  }

  search(text: string): MarketplaceHit[] {
    const words = text
      .toLowerCase()
      .split(/\s+/)
      .filter((word) => word !== '');
    const installed = this.plugins.list();
    const hits: MarketplaceHit[] = [];
    for (const row of this.registry.list()) {
      let index: MarketplaceIndex;
      try {
        index = readMarketplaceIndex(row.dir);
      } catch {
        continue; // `marketplace list` says why
      }
      for (const entry of index.entries) {
        const haystack = [entry.name, entry.description, ...entry.keywords].join('\n').toLowerCase();
        if (!words.every((word) => haystack.includes(word))) continue;
        const reason = installReason(entry);
        hits.push({
          id: `${entry.name}@${row.name}`,
          name: entry.name,
          marketplace: row.name,
          description: entry.description,
          keywords: entry.keywords,
          source: describeSource(entry.source, row),
          installable: reason === null,
          reason: reason === null ? null : redactCredentials(reason),
          installed:
            installed.find((plugin) => plugin.marketplace?.name === row.name && plugin.marketplace.plugin === entry.name)?.name ?? null,
        });
      }
    }
    return hits;
  }

  async install(id: string, options: { name?: string; allowEmpty?: boolean } = {}): Promise<PluginInstall> {
    const match = ENTRY_ID.exec(id);
    if (match === null)
      throw new PluginInputRefusedError('MARKETPLACE_ENTRY_INVALID', `${JSON.stringify(id.slice(0, 160))} is not NAME@MARKETPLACE`);
    const [, entryName = '', marketplaceName = ''] = match;
    const row = this.require(marketplaceName);
    const index = readIndex(row.dir, row.url);
    const entry = index.entries.find((candidate) => candidate.name === entryName);
    if (entry === undefined)
      throw new MarketplaceNotFoundError('MARKETPLACE_PLUGIN_NOT_FOUND', `marketplace ${row.name} lists no plugin named ${entryName}`);
    const reason = installReason(entry);
    if (reason !== null) throw new MarketplaceRefusedError('MARKETPLACE_SOURCE_UNSUPPORTED', `${id} cannot be installed: ${reason}`);
    const name = options.name ?? parsePluginName(entry.name, `marketplace ${row.name}; give --name to choose another`);
    const common: InstallPluginOptions = {
      name,
      marketplace: { name: row.name, url: row.url, plugin: entry.name },
      definition: entry.definition,
      ...(options.allowEmpty === true ? { allowEmpty: true } : {}),
    };
    const source = entry.source as Exclude<MarketplaceSource, { kind: 'unsupported' }>;
    if (source.kind === 'git') {
      return this.manager.install(source.url, {
        ...common,
        ...(source.ref === null ? {} : { ref: source.ref }),
        ...(source.path === '' ? {} : { path: source.path }),
        ...(source.sha === null ? {} : { commit: source.sha, pin: true }),
      });
    }
    // A folder of the marketplace: a folder of the shared clone of the marketplace's repository,
    // made at the commit the index was read at by the first plugin installed from it.
    const clone = this.git(row.dir, false);
    const origin = await clone.originUrl();
    const branch = await clone.currentBranch();
    return this.manager.install(origin, {
      ...common,
      ...(branch === null ? {} : { ref: branch }),
      ...(source.path === '' ? {} : { path: source.path }),
      commit: row.commit,
      // Its repository's plugins share one clone: a later entry joins it where it is.
      joinAtHead: true,
    });
  }

  private async updateOne(row: MarketplaceRow): Promise<MarketplaceUpdate> {
    const local = this.git(row.dir, false);
    const source = parsePluginSource(await local.originUrl(), row.dir);
    const git = this.git(row.dir, source.transport === 'file');
    const changed = await git.changedPaths();
    if (changed.length > 0) {
      throw new PluginUpdateRefusedError(
        'MARKETPLACE_LOCAL_CHANGES',
        `marketplace ${row.name} has local changes in its clone (${changed.slice(0, 3).join(', ')}); remove and add it again`,
      );
    }
    const from = await git.commitOf('HEAD');
    const branch = await git.currentBranch();
    if (branch === null) return { name: row.name, status: 'pinned', from, to: from };
    parsePluginRef(branch);
    await git.fetchBranch(branch);
    const to = await git.commitOf(`refs/remotes/origin/${branch}`);
    if (to === from) return { name: row.name, status: 'up-to-date', from, to };
    // An index is followed even when upstream rewrote its history: it holds no work of the owner's.
    await git.checkoutBranchAt(branch, to);
    try {
      readIndex(row.dir, row.url);
      this.registry.setCommit(row.name, to);
    } catch (error) {
      await git.checkoutBranchAt(branch, from);
      throw error;
    }
    return { name: row.name, status: 'updated', from, to };
  }

  private summary(row: MarketplaceRow): MarketplaceSummary {
    try {
      const index = readMarketplaceIndex(row.dir);
      return { ...row, format: index.format, description: index.description, plugins: index.entries.length, problems: index.skipped };
    } catch (error) {
      return { ...row, format: null, description: null, plugins: 0, problems: [(error as Error).message] };
    }
  }

  private require(name: string): MarketplaceRow {
    const row = typeof name === 'string' ? this.registry.get(name) : undefined;
    if (row === undefined)
      throw new MarketplaceNotFoundError(
        'MARKETPLACE_NOT_FOUND',
        `no marketplace named ${JSON.stringify(String(name).slice(0, 80))} has been added`,
      );
    return row;
  }

  private assertNameFree(name: string): void {
    const existing = this.registry.get(name);
    if (existing !== undefined) {
      throw new MarketplaceExistsError(
        'MARKETPLACE_EXISTS',
        `a marketplace named ${name} is already added (from ${existing.url}); remove it first or choose another --name`,
      );
    }
    if (trackedFs.existsSync(path.join(marketplacesDir(this.places.dataDir), name))) {
      throw new MarketplaceExistsError(
        'MARKETPLACE_FOLDER_EXISTS',
        `${path.join(marketplacesDir(this.places.dataDir), name)} already exists but is not an added marketplace; move it away`,
      );
    }
  }

  private git(dir: string, allowFileProtocol: boolean): PluginGit {
    return pluginGit(this.parts, dir, allowFileProtocol);
  }
}

/** A marketplace name follows the plugin name rules: it becomes a folder name and the part after `@`. */
export function parseMarketplaceName(name: unknown, origin: string): string {
  if (typeof name === 'string' && PLUGIN_NAME_PATTERN.test(name)) return name;
  const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 80)) : String(name);
  throw new PluginInputRefusedError(
    'MARKETPLACE_NAME_INVALID',
    `marketplace name ${shown} (from ${origin}) must be 1-64 lower-case letters, digits, "-" or ".", starting with a letter or digit`,
  );
}

function readIndex(dir: string, shown: string): MarketplaceIndex {
  try {
    return readMarketplaceIndex(dir);
  } catch (error) {
    if (error instanceof MarketplaceRefusedError) throw new MarketplaceRefusedError(error.code, `${shown}: ${error.message}`);
    throw error;
  }
}

function installReason(entry: MarketplaceEntry): string | null {
  return entry.source.kind === 'unsupported' ? entry.source.reason : null;
}

function describeSource(source: MarketplaceSource, row: MarketplaceRow): string {
  if (source.kind === 'unsupported') return 'not installable';
  if (source.kind === 'folder') return source.path === '' ? `${row.url} (its root)` : `${row.url} (${source.path})`;
  const at = source.sha !== null ? ` at ${source.sha.slice(0, 12)}` : source.ref !== null ? ` at ${source.ref}` : '';
  return `${redactCredentials(source.url)}${source.path === '' ? '' : ` (${source.path})`}${at}`;
}
