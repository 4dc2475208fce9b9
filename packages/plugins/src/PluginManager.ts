import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type Diagnostic, Places, redactCredentials, token } from '@loadout/kernel';
import { isInside, isLoadoutError } from '@loadout/files';
import { inject, injectable } from 'tsyringe';
import { findPluginManifest, type PluginFormat } from './findPluginManifest.js';
import { parsePluginName } from './parsePluginName.js';
import { parsePluginCommit, parsePluginPath, parsePluginRef } from './parsePluginRef.js';
import { parsePluginSource } from './parsePluginSource.js';
import type { PluginDefinition } from './PluginDefinition.js';
import {
  OwnerRepositoryNotGitError,
  PluginExistsError,
  PluginGitError,
  PluginNotFoundError,
  PluginRepositoryRefusedError,
  PluginUpdateRefusedError,
} from './PluginErrors.js';
import { PluginGit } from './PluginGit.js';
import type { PluginLifecycleListener } from './PluginLifecycleListener.js';
import { PLUGIN_LOCK_FILE, PluginLock } from './PluginLock.js';
import { type PluginEntry, type PluginMarketplaceRef, PluginRegistry } from './PluginRegistry.js';
import { pluginDataDir, pluginPlaces, readPluginLayout } from './readPluginLayout.js';
import { readPluginName } from './readPluginName.js';
import { straySkills } from './pluginSkills.js';
import { moveWithRecord } from './moveWithRecord.js';
import { asideName, makeStaging, sweepStale, TRASH_PREFIX } from './stagingFolders.js';
import { pathInside } from './pathInside.js';
import { MARKETPLACE_INDEXES } from './readMarketplaceIndex.js';

export interface InstallPluginOptions {
  /** The plugin's name; otherwise its manifest's, otherwise the repository's base name. */
  readonly name?: string;
  /** A branch or tag to check out instead of the remote's default branch. */
  readonly ref?: string;
  /** The plugin's root inside the repository (`plugins/pdf`), for a plugin that is not the whole repository. */
  readonly path?: string;
  /** A full commit id to check out once cloned (a marketplace entry's `sha`, a lock file's commit). */
  readonly commit?: string;
  /** Hold the clone at `commit` (detached) so update never moves it. */
  readonly pin?: boolean;
  /** The marketplace entry it comes from, and what that entry says about it. */
  readonly marketplace?: PluginMarketplaceRef;
  readonly definition?: PluginDefinition;
  /** False to leave the lock file as it is (a sync installs what the lock already records). */
  readonly recordInLock?: boolean;
}

/** What `install` made: the registry's entry, and how the plugin reads (format, manifest, what a session will report). */
export interface PluginInstall extends PluginEntry {
  readonly format: PluginFormat;
  readonly manifest: string | null;
  readonly diagnostics: readonly Diagnostic[];
}

/** What `update` did to one plugin. */
export interface PluginUpdate {
  readonly name: string;
  /**
   * `updated`: fast-forwarded; `up-to-date`: nothing new upstream; `pinned`: installed at a tag
   * (detached), which update never moves.
   */
  readonly status: 'updated' | 'up-to-date' | 'pinned';
  readonly from: string;
  readonly to: string;
}

/** Where a plugin's upstream branch is, as fetched just now. */
export interface PluginUpstream {
  readonly name: string;
  /** The branch the clone follows; null when it is held at one commit. */
  readonly branch: string | null;
  /** The commit the clone is at. */
  readonly commit: string;
  /** The upstream branch's commit; null when the clone follows none. */
  readonly upstream: string | null;
  /** How many commits upstream is ahead, when it can fast-forward. */
  readonly behind: number | null;
  readonly fastForward: boolean;
}

export interface PluginUninstall {
  readonly name: string;
  readonly dir: string;
  /** Listeners that failed, or a folder that could not be fully removed; the uninstall stands. */
  readonly warnings: readonly string[];
}

/** An untracked file in the owner's repository that is a byte-identical copy of a plugin's file. */
export interface MigrationCopy {
  /** Relative to the owner's capabilities folder, with `/` separators. */
  readonly path: string;
  /** The installed plugin holding the same bytes at the same path. */
  readonly plugin: string;
}

export interface PluginMigration {
  readonly applied: boolean;
  /** The copies found; with `applied`, each has been deleted. */
  readonly files: readonly MigrationCopy[];
}

/**
 * Installs, updates, enables, disables and uninstalls plugins: git clones in `plugins/<name>`,
 * recorded in the registry. Every URL, name and ref is checked before git starts; git runs
 * hardened (see {@link PluginGit}).
 */
export interface PluginManager {
  /**
   * Clones into a temporary folder inside `plugins/`, checks it is a plugin, names it, and moves it
   * into place and records it in one step. Any failure leaves no folder and no row.
   */
  install(url: string, options?: InstallPluginOptions): Promise<PluginInstall>;
  /** Fast-forwards each named plugin (every plugin when none is named) to its upstream branch. */
  update(names?: readonly string[]): Promise<PluginUpdate[]>;
  enable(name: string): PluginEntry;
  disable(name: string): PluginEntry;
  /**
   * Moves an installed plugin's clone to `commit` (refused with local changes): held there with
   * `pin`, otherwise with its branch pointed at it so update can follow upstream from there.
   */
  checkout(name: string, commit: string, options: { pin: boolean; recordInLock?: boolean }): Promise<PluginUpdate>;
  /** Paths with local changes in the plugin's clone (untracked files included). */
  localChanges(name: string): Promise<string[]>;
  /** Fetches each plugin's branch (every plugin when none is named) and says where upstream is, moving nothing. */
  upstream(names?: readonly string[]): Promise<PluginUpstream[]>;
  /** Removes the folder and the row, then tells the lifecycle listeners. */
  uninstall(name: string): PluginUninstall;
  list(): PluginEntry[];
  /**
   * Finds untracked, unignored files in the owner's repository that are byte-identical to the same
   * path in an installed plugin; with `apply`, deletes exactly those. Never a tracked or differing file.
   */
  migrate(options: { apply: boolean }): Promise<PluginMigration>;
}
export const PluginManager = token<PluginManager>('plugins.manager');

/** What {@link GitPluginManager} needs besides the registry and the places. */
export interface GitPluginManagerParts {
  /** The kind folders (`skills`, `tasks` …) a plugin may hold; asked at install time. */
  readonly kindFolders: () => readonly string[];
  /** The listeners registered at the moment of the change. */
  readonly listeners: () => readonly PluginLifecycleListener[];
  /** Where git takes its few passed-through variables from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where a relative local path given to `install` is taken from. */
  readonly cwd: () => string;
  readonly gitTimeoutMs?: number;
}
export const GitPluginManagerParts = token<GitPluginManagerParts>('plugins.managerParts');

@injectable()
export class GitPluginManager implements PluginManager {
  constructor(
    @inject(PluginRegistry) private readonly registry: PluginRegistry,
    @inject(Places) private readonly places: Places,
    @inject(GitPluginManagerParts) private readonly parts: GitPluginManagerParts,
    @inject(PluginLock) private readonly lock: PluginLock,
  ) {}

  async install(url: string, options: InstallPluginOptions = {}): Promise<PluginInstall> {
    const source = parsePluginSource(url, this.parts.cwd());
    const requested = options.name === undefined ? null : parsePluginName(options.name, '--name');
    const ref = options.ref === undefined ? null : parsePluginRef(options.ref);
    const subdir = options.path === undefined ? '' : parsePluginPath(options.path, '--path');
    const commitWanted = options.commit === undefined ? null : parsePluginCommit(options.commit, 'the install');
    if (requested !== null) this.assertNameFree(requested);

    const pluginsDir = this.places.pluginsDir;
    fs.mkdirSync(pluginsDir, { recursive: true });
    sweepStale(pluginsDir);
    const staging = makeStaging(pluginsDir);
    // mkdtemp makes the folder private; a plugin's clone is ordinary readable content.
    fs.chmodSync(staging, 0o755);
    let placed = false;
    try {
      const allowFileProtocol = source.transport === 'file';
      await this.git(pluginsDir, allowFileProtocol).clone(source.url, staging, ref);
      const clone = this.git(staging, allowFileProtocol);
      if (commitWanted !== null) await this.checkOut(clone, commitWanted, options.pin === true, source.displayUrl);
      // Two git processes at once: where HEAD is (commit and branch), and whether its tree holds a submodule.
      const [head, submodules] = await Promise.all([clone.head(), clone.hasSubmodules('HEAD')]);
      const { commit } = head;
      const pinned = head.branch === null;
      if (submodules) throw submodulesRefused(source.displayUrl);
      const root = subdir === '' ? staging : path.join(staging, ...subdir.split('/'));
      const shown = subdir === '' ? source.displayUrl : `${source.displayUrl} (${subdir})`;
      if (subdir !== '' && pathInside(staging, subdir).type !== 'folder') {
        throw new PluginRepositoryRefusedError(
          'PLUGIN_PATH_MISSING',
          `${source.displayUrl} has no folder ${subdir} at commit ${commit.slice(0, 12)}`,
        );
      }
      if (options.definition === undefined) this.assertIsPlugin(root, shown);
      const name = readPluginName(root, subdir === '' ? source.baseName : (subdir.split('/').pop() as string), requested);
      moveWithRecord({
        from: staging,
        to: path.join(pluginsDir, name),
        transaction: (work) => this.registry.transaction(work),
        check: () => this.assertNameFree(name),
        record: () => {
          this.registry.add({
            name,
            url: source.displayUrl,
            ref,
            commit,
            pinned,
            path: subdir,
            marketplace: options.marketplace ?? null,
            definition: options.definition ?? null,
          });
          if (options.recordInLock !== false) this.lock.record(name);
        },
      });
      placed = true;
      fs.mkdirSync(pluginDataDir(this.places.dataDir, name), { recursive: true });
      return this.report(this.require(name));
    } finally {
      if (!placed) fs.rmSync(staging, { recursive: true, force: true });
    }
  }

  /**
   * Moves a fresh clone to `commit`: held there when `pin` or when the clone has no branch (a tag),
   * otherwise with its branch pointed at it so update can follow upstream from there. A commit no
   * branch holds is fetched by id.
   */
  private async checkOut(clone: PluginGit, commit: string, pin: boolean, shown: string): Promise<void> {
    if (!(await clone.hasCommit(commit))) {
      try {
        await clone.fetchCommit(commit);
      } catch (error) {
        throw new PluginGitError('PLUGIN_COMMIT_MISSING', `${shown} has no commit ${commit.slice(0, 12)} (${(error as Error).message})`);
      }
    }
    if (await clone.hasSubmodules(commit)) throw submodulesRefused(shown);
    const branch = pin ? null : await clone.currentBranch();
    if (branch === null) await clone.checkoutDetached(commit);
    else await clone.checkoutBranchAt(branch, commit);
  }

  async update(names: readonly string[] = []): Promise<PluginUpdate[]> {
    sweepStale(this.places.pluginsDir);
    // Unknown names are refused before anything is fetched.
    const entries = names.length === 0 ? this.registry.list() : [...new Set(names)].map((name) => this.require(name));
    const updates: PluginUpdate[] = [];
    const refusals: { name: string; error: Error }[] = [];
    for (const entry of entries) {
      try {
        updates.push(await this.updateOne(entry));
      } catch (error) {
        if (!isLoadoutError(error)) throw error;
        refusals.push({ name: entry.name, error });
      }
    }
    const [only] = refusals;
    if (only !== undefined && entries.length === 1) throw only.error;
    if (refusals.length > 0) {
      const done = updates.map((u) => `${u.name} ${u.status}`).join(', ');
      const refused = refusals.map((r) => r.error.message).join('; ');
      throw new PluginUpdateRefusedError(
        'PLUGIN_UPDATE_INCOMPLETE',
        `${refusals.length} of ${entries.length} plugins were not updated: ${refused}${done === '' ? '' : ` (done: ${done})`}`,
      );
    }
    return updates;
  }

  enable(name: string): PluginEntry {
    return this.setEnabled(name, true);
  }

  disable(name: string): PluginEntry {
    return this.setEnabled(name, false);
  }

  private setEnabled(name: string, enabled: boolean): PluginEntry {
    this.require(name);
    this.registry.transaction(() => {
      this.registry.setEnabled(name, enabled);
      this.lock.record(name);
    });
    return this.require(name);
  }

  uninstall(name: string): PluginUninstall {
    sweepStale(this.places.pluginsDir);
    const entry = this.require(name);
    const trash = path.join(this.places.pluginsDir, `${TRASH_PREFIX}${name}-${crypto.randomBytes(4).toString('hex')}`);
    const moved = moveWithRecord({
      from: entry.dir,
      to: trash,
      transaction: (work) => this.registry.transaction(work),
      record: () => {
        this.registry.remove(name);
        this.lock.record(name);
      },
      optional: true,
    });
    const warnings: string[] = [];
    try {
      if (moved) fs.rmSync(trash, { recursive: true, force: true });
    } catch (error) {
      warnings.push(`the old folder ${path.basename(trash)} could not be fully removed: ${(error as Error).message}`);
    }
    try {
      fs.rmSync(pluginDataDir(this.places.dataDir, name), { recursive: true, force: true });
    } catch (error) {
      warnings.push(`its data folder could not be fully removed: ${(error as Error).message}`);
    }
    for (const listener of this.parts.listeners()) {
      try {
        listener.pluginUninstalled(name);
      } catch (error) {
        warnings.push(`a lifecycle listener failed: ${redactCredentials((error as Error).message ?? String(error))}`);
      }
    }
    return { name, dir: entry.dir, warnings };
  }

  list(): PluginEntry[] {
    sweepStale(this.places.pluginsDir);
    return this.registry.list();
  }

  async migrate(options: { apply: boolean }): Promise<PluginMigration> {
    const owner = this.places.capabilitiesDir;
    if (!lstatOrNull(owner)?.isDirectory()) return { applied: options.apply, files: [] };
    const git = this.git(owner, false);
    if (!(await git.isInsideWorkTree())) throw new OwnerRepositoryNotGitError(owner);
    const untracked = await git.untrackedFiles();
    const plugins = this.registry.list();
    const files: MigrationCopy[] = [];
    for (const relative of untracked) {
      // The lock file is the owner's own record, whatever a plugin ships under that name.
      if (relative === PLUGIN_LOCK_FILE) continue;
      const ownerFile = path.join(owner, relative);
      if (!isInside(owner, ownerFile)) continue;
      const plugin = plugins.find((p) => sameBytes(ownerFile, owner, path.join(p.root, relative), p.root));
      if (plugin !== undefined) files.push({ path: relative.split(path.sep).join('/'), plugin: plugin.name });
    }
    if (options.apply) {
      for (const file of files) {
        const ownerFile = path.join(owner, file.path);
        fs.unlinkSync(ownerFile);
        removeEmptyParents(path.dirname(ownerFile), owner);
      }
    }
    return { applied: options.apply, files };
  }

  /**
   * Fast-forwards one plugin without ever touching its clone in place: origin is asked first
   * (nothing written); when it moved, the clone is copied into a staging folder, fetched and
   * fast-forwarded there, and swapped in with two renames. A kill at any point leaves the plugin's
   * folder whole at its old commit (or, between the renames, moved aside and put back by the next
   * command), never a half-merged tree with git's `index.lock`.
   */
  private async updateOne(entry: PluginEntry): Promise<PluginUpdate> {
    const git = await this.openClone(entry, 'update');
    const from = await git.commitOf('HEAD');
    const branch = await git.currentBranch();
    if (branch === null) {
      this.recordCommit(entry, from, true);
      return { name: entry.name, status: 'pinned', from, to: from };
    }
    parsePluginRef(branch);
    if ((await git.remoteBranchCommit(branch)) === from) {
      this.recordCommit(entry, from, false);
      return { name: entry.name, status: 'up-to-date', from, to: from };
    }
    const pluginsDir = this.places.pluginsDir;
    const staging = makeStaging(pluginsDir);
    let placed = false;
    try {
      fs.cpSync(entry.dir, staging, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
      fs.chmodSync(staging, fs.statSync(entry.dir).mode & 0o777);
      const copy = this.git(staging, git.allowFileProtocol);
      await copy.fetchBranch(branch);
      const to = await copy.commitOf(`refs/remotes/origin/${branch}`);
      if (to === from) {
        this.recordCommit(entry, from, false);
        return { name: entry.name, status: 'up-to-date', from, to };
      }
      if ((await copy.mergeBase(from, to)) !== from) {
        throw new PluginUpdateRefusedError(
          'PLUGIN_NOT_FAST_FORWARD',
          `plugin ${entry.name} cannot fast-forward: its local history and origin/${branch} have diverged; reinstall it to follow upstream`,
        );
      }
      if (await copy.hasSubmodules(to)) throw submodulesRefused(`plugin ${entry.name} upstream`);
      await copy.fastForward(to);
      const now = await copy.commitOf('HEAD');
      if (now !== to) throw new PluginGitError('PLUGIN_GIT_FAILED', `plugin ${entry.name}: fast-forward ended at ${now}, not ${to}`);
      const aside = asideName(pluginsDir, entry.name);
      fs.renameSync(entry.dir, aside);
      fs.renameSync(staging, entry.dir);
      placed = true;
      try {
        this.recordCommit(entry, to, false);
      } catch (error) {
        // The row and the lock still name the old commit: put the old clone back.
        fs.renameSync(entry.dir, staging);
        fs.renameSync(aside, entry.dir);
        placed = false;
        throw error;
      }
      fs.rmSync(aside, { recursive: true, force: true });
      return { name: entry.name, status: 'updated', from, to };
    } finally {
      if (!placed) fs.rmSync(staging, { recursive: true, force: true });
    }
  }

  async checkout(name: string, commit: string, options: { pin: boolean; recordInLock?: boolean }): Promise<PluginUpdate> {
    const entry = this.require(name);
    const wanted = parsePluginCommit(commit, 'the lock file');
    const git = await this.openClone(entry, 'sync');
    const from = await git.commitOf('HEAD');
    const branch = options.pin ? null : await git.currentBranch();
    if (!(await git.hasCommit(wanted))) {
      if (branch !== null) await git.fetchBranch(parsePluginRef(branch));
      if (!(await git.hasCommit(wanted))) await git.fetchCommit(wanted);
    }
    if (await git.hasSubmodules(wanted)) throw submodulesRefused(`plugin ${name} at ${wanted.slice(0, 12)}`);
    if (branch === null) await git.checkoutDetached(wanted);
    else await git.checkoutBranchAt(branch, wanted);
    const pinned = (await git.currentBranch()) === null;
    if (options.recordInLock === false) {
      if (wanted !== entry.commit || pinned !== entry.pinned) this.registry.setCommit(name, wanted, pinned);
    } else {
      this.recordCommit(entry, wanted, pinned);
    }
    return { name, status: from === wanted ? 'up-to-date' : 'updated', from, to: wanted };
  }

  async localChanges(name: string): Promise<string[]> {
    const entry = this.require(name);
    if (!lstatOrNull(entry.dir)?.isDirectory()) return [];
    const source = parsePluginSource(await this.git(entry.dir, false).originUrl(), entry.dir);
    return this.git(entry.dir, source.transport === 'file').changedPaths();
  }

  async upstream(names: readonly string[] = []): Promise<PluginUpstream[]> {
    const entries = names.length === 0 ? this.registry.list() : [...new Set(names)].map((name) => this.require(name));
    const found: PluginUpstream[] = [];
    for (const entry of entries) {
      const source = parsePluginSource(await this.git(entry.dir, false).originUrl(), entry.dir);
      const git = this.git(entry.dir, source.transport === 'file');
      const commit = await git.commitOf('HEAD');
      const branch = await git.currentBranch();
      if (branch === null) {
        found.push({ name: entry.name, branch: null, commit, upstream: null, behind: null, fastForward: false });
        continue;
      }
      await git.fetchBranch(parsePluginRef(branch));
      const upstream = await git.commitOf(`refs/remotes/origin/${branch}`);
      const fastForward = (await git.mergeBase(commit, upstream)) === commit;
      found.push({
        name: entry.name,
        branch,
        commit,
        upstream,
        behind: fastForward ? await git.countCommits(commit, upstream) : null,
        fastForward,
      });
    }
    return found;
  }

  /**
   * The clone of an installed plugin, ready for a change: its folder exists and it has no local
   * changes. Git is run for the clone's own origin, which may hold a credential the registry never
   * stored; the URL is checked again because the clone's config is a file anyone could edit.
   */
  private async openClone(entry: PluginEntry, verb: string): Promise<PluginGit> {
    if (!lstatOrNull(entry.dir)?.isDirectory()) {
      throw new PluginRepositoryRefusedError(
        'PLUGIN_FOLDER_MISSING',
        `plugin ${entry.name}: its folder plugins/${entry.name} is missing; uninstall and install it again`,
      );
    }
    const local = this.git(entry.dir, false);
    const source = parsePluginSource(await local.originUrl(), entry.dir);
    const git = this.git(entry.dir, source.transport === 'file');
    const changed = await git.changedPaths();
    if (changed.length > 0) {
      const shown = changed.slice(0, 5).join(', ') + (changed.length > 5 ? ` and ${changed.length - 5} more` : '');
      throw new PluginUpdateRefusedError(
        'PLUGIN_LOCAL_CHANGES',
        `plugin ${entry.name} has local changes in plugins/${entry.name} (${shown}); commit, move or discard them, then ${verb} again`,
      );
    }
    return git;
  }

  /** An installed plugin with how it reads now: its format, its manifest, and what a session will say of it. */
  private report(entry: PluginEntry): PluginInstall {
    const reading = readPluginLayout({
      places: pluginPlaces(entry.name, entry.root, this.places.dataDir),
      definition: entry.definition,
    });
    return { ...entry, format: reading.format, manifest: reading.manifest, diagnostics: reading.layout.diagnostics };
  }

  /** Records where a clone is, in the registry and the lock file at once, when that changed. */
  private recordCommit(entry: PluginEntry, commit: string, pinned: boolean): void {
    if (commit === entry.commit && pinned === entry.pinned) return;
    this.registry.transaction(() => {
      this.registry.setCommit(entry.name, commit, pinned);
      this.lock.record(entry.name);
    });
  }

  private require(name: string): PluginEntry {
    const entry = typeof name === 'string' ? this.registry.get(name) : undefined;
    if (entry === undefined) throw new PluginNotFoundError(JSON.stringify(String(name).slice(0, 80)));
    return entry;
  }

  private assertNameFree(name: string): void {
    const existing = this.registry.get(name);
    if (existing !== undefined) {
      throw new PluginExistsError(
        'PLUGIN_EXISTS',
        `a plugin named ${name} is already installed (from ${existing.url}); uninstall it first or choose another --name`,
      );
    }
    if (lstatOrNull(path.join(this.places.pluginsDir, name)) !== null) {
      throw new PluginExistsError(
        'PLUGIN_FOLDER_EXISTS',
        `plugins/${name} already exists but is not an installed plugin; move it away or choose another --name`,
      );
    }
  }

  /**
   * A plugin has a manifest, one of Loadout's kind folders, or a `SKILL.md` at its root. A
   * marketplace (an index of plugins) is refused with a pointer to `marketplace add`, and a
   * repository whose skills sit where no layout puts them says where they are.
   */
  private assertIsPlugin(root: string, shown: string): void {
    const folders = this.parts.kindFolders();
    if (findPluginManifest(root).format !== 'loadout') return;
    // A kind folder that is a link is not the plugin's own content.
    if (folders.some((folder) => lstatOrNull(path.join(root, folder))?.isDirectory() === true)) return;
    if (lstatOrNull(path.join(root, 'SKILL.md'))?.isFile() === true) return;
    const index = MARKETPLACE_INDEXES.find((candidate) => pathInside(root, candidate.file).type === 'file');
    if (index !== undefined) {
      throw new PluginRepositoryRefusedError(
        'PLUGIN_IS_A_MARKETPLACE',
        `${shown} is a marketplace (${index.file}), not a plugin: add it with \`loadout marketplace add\` and install its plugins as NAME@MARKETPLACE`,
      );
    }
    const strays = straySkills(root, 'repository', [], { deep: true })[0]?.subjects ?? [];
    const hint =
      strays.length === 0
        ? ''
        : `; it has SKILL.md files where no plugin layout puts them (${strays.slice(0, 5).join(', ')}${strays.length > 5 ? ' …' : ''})`;
    throw new PluginRepositoryRefusedError(
      'PLUGIN_NOT_A_PLUGIN',
      `${shown} is not a plugin: it has no plugin manifest, no SKILL.md and none of the folders ${folders.join(', ')} at its root${hint}`,
    );
  }

  private git(dir: string, allowFileProtocol: boolean): PluginGit {
    return pluginGit(this.parts, dir, allowFileProtocol);
  }
}

/** Hardened git in `dir` with the environment and time limit the parts give. */
export function pluginGit(parts: GitPluginManagerParts, dir: string, allowFileProtocol: boolean): PluginGit {
  return new PluginGit(dir, {
    allowFileProtocol,
    env: parts.env,
    ...(parts.gitTimeoutMs === undefined ? {} : { timeoutMs: parts.gitTimeoutMs }),
  });
}

function submodulesRefused(what: string): PluginRepositoryRefusedError {
  return new PluginRepositoryRefusedError(
    'PLUGIN_HAS_SUBMODULES',
    `${what} has git submodules; a plugin's content must all be in its own repository, so it is refused`,
  );
}

function lstatOrNull(file: string): fs.Stats | null {
  try {
    return fs.lstatSync(file);
  } catch {
    return null;
  }
}

/**
 * Whether two files hold the same bytes. Both must be regular files (not links) whose real path is
 * inside their root, so a link in either repository can never make Loadout read elsewhere.
 */
function sameBytes(ownerFile: string, ownerRoot: string, pluginFile: string, pluginRoot: string): boolean {
  const a = regularFileInside(ownerFile, ownerRoot);
  const b = regularFileInside(pluginFile, pluginRoot);
  if (a === null || b === null || a.size !== b.size) return false;
  return fs.readFileSync(ownerFile).equals(fs.readFileSync(pluginFile));
}

function regularFileInside(file: string, root: string): fs.Stats | null {
  const stat = lstatOrNull(file);
  if (stat === null || !stat.isFile()) return null;
  try {
    return isInside(fs.realpathSync(root), fs.realpathSync(file)) ? stat : null;
  } catch {
    return null;
  }
}

/** Removes folders left empty by a migration, walking up to (not including) `root`. */
function removeEmptyParents(dir: string, root: string): void {
  let current = dir;
  while (current !== root && isInside(root, current)) {
    try {
      fs.rmdirSync(current);
    } catch {
      return;
    }
    current = path.dirname(current);
  }
}
