import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type Diagnostic, Places, redactCredentials, type Root, token } from '@loadout/kernel';
import { isInside, isLoadoutError, trackedFs } from '@loadout/files';
import { inject, injectable } from 'tsyringe';
import type { PluginFormat } from './findPluginManifest.js';
import { emptyInstallRefusal, type InstallableListing, listedMarketplace, skillCollectionsIn } from './installable.js';
import { type PluginContents, PluginContentsReader, type PluginReading } from './pluginContents.js';
import { parsePluginName } from './parsePluginName.js';
import { parsePluginCommit, parsePluginPath, parsePluginRef } from './parsePluginRef.js';
import { type PluginSourceUrl, parsePluginSource } from './parsePluginSource.js';
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
import { moveWithRecord } from './moveWithRecord.js';
import { asideName, makeStaging, sweepStale, TRASH_PREFIX } from './stagingFolders.js';
import { pathInside } from './pathInside.js';
import {
  type CloneKey,
  clonesToJoin,
  goesIntoSharedClone,
  inPluginPaths,
  newSharedCloneFolder,
  ownClonesToShare,
  pluginPaths,
  pluginsInClone,
} from './sharedClones.js';

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
  /**
   * `commit` is only where a fresh clone starts (the commit a marketplace's index was read at): the
   * plugin may join its repository's shared clone at whatever commit that clone is at.
   */
  readonly joinAtHead?: boolean;
  /** Install even when the plugin loads nothing (otherwise refused, with what to install instead). */
  readonly allowEmpty?: boolean;
}

/** What an install was asked, checked: carried from {@link GitPluginManager.install} to its steps. */
interface InstallSteps {
  readonly source: PluginSourceUrl;
  readonly subdir: string;
  readonly requested: string | null;
  readonly options: InstallPluginOptions;
}

/**
 * What `install` made: the registry's entry, how the plugin reads (format, manifest), what it gives
 * a session (`loaded`, `summary`) and what it does not and why (`diagnostics`, each naming it).
 */
export interface PluginInstall extends PluginEntry {
  readonly format: PluginFormat;
  readonly manifest: string | null;
  readonly loaded: PluginContents['loaded'];
  /** `17 skills, 2 commands, 1 server (held)`. */
  readonly summary: string;
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
  /**
   * How many commits upstream is ahead that touch the plugin's own paths, when it can fast-forward
   * from the clone's commit (and that is the commit compared from).
   */
  readonly behind: number | null;
  /** Whether the clone can fast-forward to upstream; null when none of the plugin's own files changed (not asked then). */
  readonly fastForward: boolean | null;
  /** The commit compared from: the clone's, unless {@link UpstreamOptions.since} gave another (the lock's). */
  readonly since: string;
  /**
   * The plugin's own files (its folder, or what its whole-definition entry lists) that differ
   * between `since` and upstream; empty when upstream only moved elsewhere in the repository, null
   * when that cannot be told (the clone does not hold `since`) or the clone follows no branch.
   */
  readonly changed: readonly string[] | null;
}

export interface UpstreamOptions {
  /** The commit to compare a plugin from; the clone's HEAD when not given. */
  readonly since?: (entry: PluginEntry) => string;
}

export interface PluginUninstall {
  readonly name: string;
  readonly dir: string;
  /** The plugins still using its shared clone, which therefore stays; empty when the clone went with it. */
  readonly keptFor: readonly string[];
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
  /** Plugins with a clone of their own that can share their repository's clone; with `applied`, made to. */
  readonly clones: readonly CloneShare[];
}

/** Plugins of one repository and commit, each with a clone of its own, made folders of one shared clone. */
export interface CloneShare {
  /** The shared clone's folder under `plugins/`; null before `--apply` when a new one is to be made of the first plugin's clone. */
  readonly into: string | null;
  /** The plugins that share it (with `applied`, that do now). */
  readonly plugins: readonly string[];
  /** Left with their own clone: local changes, or not at the recorded commit. */
  readonly left: readonly string[];
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
  /**
   * What a repository holds that can be installed (itself as a plugin, its skill collections, its
   * marketplace's plugins), read from a clone in a staging folder that is removed again: nothing
   * is installed or recorded.
   */
  listInstallable(url: string, options?: Pick<InstallPluginOptions, 'ref' | 'path'>): Promise<InstallableListing>;
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
  /**
   * Fetches each clone's branch once (every plugin when none is named; plugins sharing a clone are
   * one fetch) and says where upstream is and which of each plugin's own files changed, moving nothing.
   */
  upstream(names?: readonly string[], options?: UpstreamOptions): Promise<PluginUpstream[]>;
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
    @inject(PluginContentsReader) private readonly contents: PluginContentsReader,
  ) {}

  async install(url: string, options: InstallPluginOptions = {}): Promise<PluginInstall> {
    const source = parsePluginSource(url, this.parts.cwd());
    const requested = options.name === undefined ? null : parsePluginName(options.name, '--name');
    const ref = options.ref === undefined ? null : parsePluginRef(options.ref);
    const subdir = options.path === undefined ? '' : parsePluginPath(options.path, '--path');
    const commitWanted = options.commit === undefined ? null : parsePluginCommit(options.commit, 'the install');
    if (requested !== null) this.assertNameFree(requested);

    const pluginsDir = this.places.pluginsDir;
    trackedFs.mkdirSync(pluginsDir, { recursive: true });
    sweepStale(pluginsDir);
    const shared = goesIntoSharedClone(subdir, options.marketplace !== undefined);
    const key: CloneKey = { url: source.displayUrl, ref, pinned: options.pin === true };
    if (shared) {
      const joined = await this.sharedCloneFor(key, commitWanted, options.joinAtHead === true);
      if (joined !== null) return await this.installInClone(joined, { source, subdir, requested, options });
    }
    const staging = makeStaging(pluginsDir);
    // mkdtemp makes the folder private; a plugin's clone is ordinary readable content.
    trackedFs.chmodSync(staging, 0o755);
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
      const install = { source, subdir, requested, options };
      const name = this.namePluginIn(staging, commit, install);
      const folder = shared ? newSharedCloneFolder(pluginsDir, source.baseName, { ...key, pinned }) : name;
      let reading: PluginReading | undefined;
      moveWithRecord({
        from: staging,
        to: path.join(pluginsDir, folder),
        transaction: (work) => this.registry.transaction(work),
        check: () => this.assertNameFree(name),
        record: () => {
          // Read where it now is, once: a plugin that loads nothing is refused (the move is undone), and the reading serves the report.
          reading = this.readToInstall(name, path.join(pluginsDir, folder), install);
          this.addPlugin(name, { source, subdir, ref, commit, pinned, clone: shared ? folder : null, options });
        },
      });
      placed = true;
      trackedFs.mkdirSync(pluginDataDir(this.places.dataDir, name), { recursive: true });
      return await this.report(this.require(name), reading);
    } finally {
      if (!placed) trackedFs.rmSync(staging, { recursive: true, force: true });
    }
  }

  async listInstallable(url: string, options: Pick<InstallPluginOptions, 'ref' | 'path'> = {}): Promise<InstallableListing> {
    const source = parsePluginSource(url, this.parts.cwd());
    const ref = options.ref === undefined ? null : parsePluginRef(options.ref);
    const subdir = options.path === undefined ? '' : parsePluginPath(options.path, '--path');
    const pluginsDir = this.places.pluginsDir;
    trackedFs.mkdirSync(pluginsDir, { recursive: true });
    sweepStale(pluginsDir);
    const staging = makeStaging(pluginsDir);
    try {
      const allowFileProtocol = source.transport === 'file';
      await this.git(pluginsDir, allowFileProtocol).clone(source.url, staging, ref);
      const { commit } = await this.git(staging, allowFileProtocol).head();
      if (subdir !== '' && pathInside(staging, subdir).type !== 'folder') {
        throw new PluginRepositoryRefusedError(
          'PLUGIN_PATH_MISSING',
          `${source.displayUrl} has no folder ${subdir} at commit ${commit.slice(0, 12)}`,
        );
      }
      const root = subdir === '' ? staging : path.join(staging, ...subdir.split('/'));
      const name = readPluginName(root, subdir === '' ? source.baseName : (subdir.split('/').pop() as string), null);
      return {
        source: source.displayUrl,
        commit,
        plugin: this.contents.read(this.pluginRoot(name, root, null)),
        collections: skillCollectionsIn(root, subdir),
        marketplace: subdir === '' ? listedMarketplace(staging) : null,
      };
    } finally {
      trackedFs.rmSync(staging, { recursive: true, force: true });
    }
  }

  /** What the plugin folder `root` would give a session if installed as `name` now. */
  /** The session root the plugin folder `root` would be as `name`. */
  private pluginRoot(name: string, root: string, definition: PluginDefinition | null): Root {
    const reading = readPluginLayout({ places: pluginPlaces(name, root, this.places.dataDir), definition });
    return { dir: root, level: 'global', plugin: name, writable: false, layout: reading.layout };
  }

  /**
   * The shared clone of the repository an install can join, or null when a new clone is needed:
   * one at the wanted commit, or (for a marketplace's folder entry, `joinAtHead`) whichever it is at,
   * since plugins sharing a clone move together.
   */
  private async sharedCloneFor(key: CloneKey, commit: string | null, joinAtHead: boolean): Promise<PluginEntry | null> {
    const rows = this.registry.list();
    const exact = await this.withOrigin(clonesToJoin(rows, key, commit), key.url);
    if (exact !== null || commit === null || !joinAtHead) return exact;
    return this.withOrigin(clonesToJoin(rows, key, null), key.url);
  }

  /**
   * The first of `rows` whose clone's origin is `url`: the registry shows URLs with anything that
   * looks like a secret redacted, so two repositories can look alike there; the clone's own
   * config tells them apart.
   */
  private async withOrigin(rows: readonly PluginEntry[], url: string): Promise<PluginEntry | null> {
    for (const row of rows) if ((await this.originOf(row.dir)) === url) return row;
    return null;
  }

  /** The credential-free origin URL of the clone in `dir`; null when it has none that Loadout accepts. */
  private async originOf(dir: string): Promise<string | null> {
    try {
      return parsePluginSource(await this.git(dir, false).originUrl(), dir).displayUrl;
    } catch (error) {
      if (isLoadoutError(error)) return null;
      throw error;
    }
  }

  /**
   * Installs a plugin that is a folder of a clone already in `plugins/`: nothing is cloned or
   * copied, the row names the shared clone and its commit. The folder must be there at the commit
   * the clone is at: plugins sharing a clone move together, so one that is only upstream waits for
   * `plugins update` of the others.
   */
  private async installInClone(sibling: PluginEntry, install: InstallSteps): Promise<PluginInstall> {
    const { source, subdir, options } = install;
    if (subdir !== '' && pathInside(sibling.dir, subdir).type !== 'folder') {
      throw new PluginRepositoryRefusedError(
        'PLUGIN_CLONE_BEHIND',
        `${source.displayUrl} has no folder ${subdir} at commit ${sibling.commit.slice(0, 12)}, where its clone plugins/${sibling.clone} is ` +
          `(shared with plugin ${sibling.name}); run \`loadout plugins update ${sibling.name}\` to move that clone forward, then install again`,
      );
    }
    const name = this.namePluginIn(sibling.dir, sibling.commit, install);
    const reading = this.readToInstall(name, sibling.dir, install);
    this.registry.transaction(() => {
      this.assertNameFree(name);
      // An uninstall in between may have removed the clone with its last plugin.
      if (pluginsInClone(this.registry.list(), sibling.clone).length === 0 || !lstatOrNull(sibling.dir)?.isDirectory()) {
        throw new PluginGitError(
          'PLUGIN_CLONE_GONE',
          `plugins/${sibling.clone} was removed while ${name} was installed into it; install again`,
        );
      }
      this.addPlugin(name, {
        source,
        subdir,
        ref: sibling.ref,
        commit: sibling.commit,
        pinned: sibling.pinned,
        clone: sibling.clone,
        options,
      });
    });
    trackedFs.mkdirSync(pluginDataDir(this.places.dataDir, name), { recursive: true });
    return this.report(this.require(name), reading);
  }

  /**
   * Reads the plugin `name` in its clone at `dir`, where it is installed, refusing it with the fix
   * when it loads nothing (unless `--allow-empty`). Issue 30: the one reading an install makes.
   */
  private readToInstall(name: string, dir: string, install: InstallSteps): PluginReading {
    const { source, subdir, options } = install;
    const root = subdir === '' ? dir : path.join(dir, ...subdir.split('/'));
    const reading = this.contents.readToInstall(this.pluginRoot(name, root, options.definition ?? null));
    if (options.allowEmpty !== true && reading.contents.loaded.length === 0) {
      const shown = subdir === '' ? source.displayUrl : `${source.displayUrl} (${subdir})`;
      throw emptyInstallRefusal({ root, source: source.displayUrl, subdir, shown }, reading.contents, this.contents.kindFolders());
    }
    return reading;
  }

  /** Checks the plugin's folder inside a clone (`dir`, at `commit`) is a plugin, and works out its name. */
  private namePluginIn(dir: string, commit: string, install: InstallSteps): string {
    const { source, subdir, requested } = install;
    const root = subdir === '' ? dir : path.join(dir, ...subdir.split('/'));
    if (subdir !== '' && pathInside(dir, subdir).type !== 'folder') {
      throw new PluginRepositoryRefusedError(
        'PLUGIN_PATH_MISSING',
        `${source.displayUrl} has no folder ${subdir} at commit ${commit.slice(0, 12)}`,
      );
    }
    return readPluginName(root, subdir === '' ? source.baseName : (subdir.split('/').pop() as string), requested);
  }

  /** The registry row and the lock entry of a plugin just placed; run inside the registry's transaction. */
  private addPlugin(
    name: string,
    row: {
      source: PluginSourceUrl;
      subdir: string;
      ref: string | null;
      commit: string;
      pinned: boolean;
      clone: string | null;
      options: InstallPluginOptions;
    },
  ): void {
    this.registry.add({
      name,
      url: row.source.displayUrl,
      ref: row.ref,
      commit: row.commit,
      pinned: row.pinned,
      path: row.subdir,
      clone: row.clone,
      marketplace: row.options.marketplace ?? null,
      definition: row.options.definition ?? null,
    });
    if (row.options.recordInLock !== false) this.lock.record(name);
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
    const clones = byClone(entries);
    const updates: PluginUpdate[] = [];
    const refusals: { plugins: number; error: Error }[] = [];
    for (const named of clones) {
      try {
        updates.push(...(await this.updateClone(named[0] as PluginEntry)));
      } catch (error) {
        if (!isLoadoutError(error)) throw error;
        refusals.push({ plugins: named.length, error });
      }
    }
    const [only] = refusals;
    if (only !== undefined && clones.length === 1) throw only.error;
    if (refusals.length > 0) {
      const done = updates.map((u) => `${u.name} ${u.status}`).join(', ');
      const refused = refusals.map((r) => r.error.message).join('; ');
      throw new PluginUpdateRefusedError(
        'PLUGIN_UPDATE_INCOMPLETE',
        `${refusals.reduce((sum, r) => sum + r.plugins, 0)} of ${entries.length} plugins were not updated: ${refused}${done === '' ? '' : ` (done: ${done})`}`,
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
    const trash = path.join(this.places.pluginsDir, `${TRASH_PREFIX}${path.basename(entry.dir)}-${crypto.randomBytes(4).toString('hex')}`);
    let keptFor: string[] = [];
    const moved = moveWithRecord({
      from: entry.dir,
      to: trash,
      transaction: (work) => this.registry.transaction(work),
      // A shared clone stays while another plugin is a folder of it; its last plugin takes it along.
      onlyIf: () => {
        keptFor = pluginsInClone(this.registry.list(), entry.clone)
          .filter((other) => other.name !== name)
          .map((other) => other.name);
        return keptFor.length === 0;
      },
      record: () => {
        this.registry.remove(name);
        this.lock.record(name);
      },
      optional: true,
    });
    const warnings: string[] = [];
    try {
      if (moved) trackedFs.rmSync(trash, { recursive: true, force: true });
    } catch (error) {
      warnings.push(`the old folder ${path.basename(trash)} could not be fully removed: ${(error as Error).message}`);
    }
    try {
      trackedFs.rmSync(pluginDataDir(this.places.dataDir, name), { recursive: true, force: true });
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
    return { name, dir: entry.dir, keptFor, warnings };
  }

  list(): PluginEntry[] {
    sweepStale(this.places.pluginsDir);
    return this.registry.list();
  }

  async migrate(options: { apply: boolean }): Promise<PluginMigration> {
    const owner = this.places.capabilitiesDir;
    if (!lstatOrNull(owner)?.isDirectory()) return { applied: options.apply, files: [], clones: await this.shareClones(options.apply) };
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
        trackedFs.unlinkSync(ownerFile);
        removeEmptyParents(path.dirname(ownerFile), owner);
      }
    }
    return { applied: options.apply, files, clones: await this.shareClones(options.apply) };
  }

  /**
   * Plugins installed before clones were shared, each a clone of its own in `plugins/<name>`, made
   * folders of one clone per repository and commit: the first one's clone is renamed into the
   * shared folder (or an existing shared clone at that commit is used), the others' removed. Nothing
   * is cloned or fetched. A clone with local changes, or not at its recorded commit, is left alone.
   */
  private async shareClones(apply: boolean): Promise<CloneShare[]> {
    const shares: CloneShare[] = [];
    for (const group of ownClonesToShare(this.registry.list())) {
      const first = group[0] as PluginEntry;
      const origin = await this.originOf(first.dir);
      const joined =
        origin === null ? null : ((await this.withOrigin(clonesToJoin(this.registry.list(), first, first.commit), origin))?.clone ?? null);
      if (!apply) {
        shares.push({ into: joined, plugins: group.map((row) => row.name), left: [] });
        continue;
      }
      const ready: PluginEntry[] = [];
      const left: string[] = [];
      for (const row of group) {
        if ((await this.cloneIsAsRecorded(row)) && origin !== null && (await this.originOf(row.dir)) === origin) ready.push(row);
        else left.push(row.name);
      }
      shares.push({ into: this.shareInto(ready, joined), plugins: ready.map((row) => row.name), left });
    }
    return shares;
  }

  /** Whether a plugin's own clone is at its recorded commit with no local change: safe to share or remove. */
  private async cloneIsAsRecorded(row: PluginEntry): Promise<boolean> {
    try {
      const git = await this.openClone(row, 'migrate');
      return (await git.head()).commit === row.commit;
    } catch (error) {
      if (isLoadoutError(error)) return false;
      throw error;
    }
  }

  /** Makes each plugin's own clone a folder of `into` (a new shared clone made of the first one's when null); the clone's folder. */
  private shareInto(rows: readonly PluginEntry[], into: string | null): string | null {
    let folder = into;
    for (const row of rows) {
      if (folder === null) {
        const made = newSharedCloneFolder(this.places.pluginsDir, repositoryBaseName(row.url), row);
        moveWithRecord({
          from: row.dir,
          to: path.join(this.places.pluginsDir, made),
          transaction: (work) => this.registry.transaction(work),
          record: () => this.registry.setClone(row.name, made),
        });
        folder = made;
        continue;
      }
      const shared = folder;
      const trash = path.join(this.places.pluginsDir, `${TRASH_PREFIX}${row.name}-${crypto.randomBytes(4).toString('hex')}`);
      moveWithRecord({
        from: row.dir,
        to: trash,
        transaction: (work) => this.registry.transaction(work),
        record: () => this.registry.setClone(row.name, shared),
      });
      trackedFs.rmSync(trash, { recursive: true, force: true });
    }
    return folder;
  }

  /**
   * Fast-forwards one clone (a plugin's own, or the clone its repository's plugins share: one fetch
   * moves them all) without ever touching it in place: origin is asked first (nothing written);
   * when it moved, the clone is copied into a staging folder, fetched and fast-forwarded there, and
   * swapped in with two renames. A kill at any point leaves the clone's folder whole at its old
   * commit (or, between the renames, moved aside and put back by the next command), never a
   * half-merged tree with git's `index.lock`. Says what happened to every plugin of the clone.
   */
  private async updateClone(entry: PluginEntry): Promise<PluginUpdate[]> {
    const git = await this.openClone(entry, 'update');
    const from = await git.commitOf('HEAD');
    const branch = await git.currentBranch();
    const moved = (status: PluginUpdate['status'], to: string): PluginUpdate[] => {
      this.recordCommit(entry, to, status === 'pinned');
      return this.cloneOf(entry).map((plugin) => ({ name: plugin.name, status, from, to }));
    };
    if (branch === null) return moved('pinned', from);
    parsePluginRef(branch);
    if ((await git.remoteBranchCommit(branch)) === from) return moved('up-to-date', from);
    const pluginsDir = this.places.pluginsDir;
    const staging = makeStaging(pluginsDir);
    let placed = false;
    try {
      trackedFs.cpSync(entry.dir, staging, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
      trackedFs.chmodSync(staging, trackedFs.statSync(entry.dir).mode & 0o777);
      const copy = this.git(staging, git.allowFileProtocol);
      await copy.fetchBranch(branch);
      const to = await copy.commitOf(`refs/remotes/origin/${branch}`);
      if (to === from) return moved('up-to-date', from);
      const shown = this.describeClone(entry);
      if ((await copy.mergeBase(from, to)) !== from) {
        throw new PluginUpdateRefusedError(
          'PLUGIN_NOT_FAST_FORWARD',
          `${shown} cannot fast-forward: its local history and origin/${branch} have diverged; reinstall it to follow upstream`,
        );
      }
      if (await copy.hasSubmodules(to)) throw submodulesRefused(`${shown} upstream`);
      await copy.fastForward(to);
      const now = await copy.commitOf('HEAD');
      if (now !== to) throw new PluginGitError('PLUGIN_GIT_FAILED', `${shown}: fast-forward ended at ${now}, not ${to}`);
      const aside = asideName(pluginsDir, path.basename(entry.dir));
      trackedFs.renameSync(entry.dir, aside);
      trackedFs.renameSync(staging, entry.dir);
      placed = true;
      let updates: PluginUpdate[];
      try {
        updates = moved('updated', to);
      } catch (error) {
        // The rows and the lock still name the old commit: put the old clone back.
        trackedFs.renameSync(entry.dir, staging);
        trackedFs.renameSync(aside, entry.dir);
        placed = false;
        throw error;
      }
      trackedFs.rmSync(aside, { recursive: true, force: true });
      return updates;
    } finally {
      if (!placed) trackedFs.rmSync(staging, { recursive: true, force: true });
    }
  }

  /** Every plugin whose clone `entry`'s is: the plugins of a shared clone, or `entry` alone. */
  private cloneOf(entry: PluginEntry): PluginEntry[] {
    return entry.clone === null ? [entry] : pluginsInClone(this.registry.list(), entry.clone);
  }

  /** How messages name a clone: `plugin a`, or `plugins a, b (one clone, plugins/_x-…)`. */
  private describeClone(entry: PluginEntry): string {
    const plugins = this.cloneOf(entry).map((plugin) => plugin.name);
    if (entry.clone === null || plugins.length < 2) return `plugin ${entry.name}`;
    const shown = plugins.length > 5 ? `${plugins.slice(0, 5).join(', ')} and ${plugins.length - 5} more` : plugins.join(', ');
    return `plugins ${shown} (one clone, plugins/${entry.clone})`;
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
    this.recordCommit(entry, wanted, pinned, options.recordInLock !== false);
    return { name, status: from === wanted ? 'up-to-date' : 'updated', from, to: wanted };
  }

  async localChanges(name: string): Promise<string[]> {
    const entry = this.require(name);
    if (!lstatOrNull(entry.dir)?.isDirectory()) return [];
    const source = parsePluginSource(await this.git(entry.dir, false).originUrl(), entry.dir);
    return this.git(entry.dir, source.transport === 'file').changedPaths();
  }

  async upstream(names: readonly string[] = [], options: UpstreamOptions = {}): Promise<PluginUpstream[]> {
    const entries = names.length === 0 ? this.registry.list() : [...new Set(names)].map((name) => this.require(name));
    const found: PluginUpstream[] = [];
    for (const plugins of byClone(entries)) found.push(...(await this.upstreamOfClone(plugins, options)));
    const order = new Map(entries.map((entry, index) => [entry.name, index]));
    return found.sort((a, b) => (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0));
  }

  /** One fetch for a clone, then for each of its plugins what changed in its own paths since its commit. */
  private async upstreamOfClone(plugins: readonly PluginEntry[], options: UpstreamOptions): Promise<PluginUpstream[]> {
    const first = plugins[0] as PluginEntry;
    const source = parsePluginSource(await this.git(first.dir, false).originUrl(), first.dir);
    const git = this.git(first.dir, source.transport === 'file');
    const { commit, branch } = await git.head();
    if (branch === null) {
      return plugins.map((entry) => ({ ...held(entry.name, commit), since: options.since?.(entry) ?? commit }));
    }
    await git.fetchBranch(parsePluginRef(branch));
    const upstream = await git.commitOf(`refs/remotes/origin/${branch}`);
    // Asked once, and only when some plugin changed: each git process costs a start (issue 30's 2 s for 91 plugins).
    let fastForwardAnswer: Promise<boolean> | null = null;
    const canFastForward = (): Promise<boolean> => (fastForwardAnswer ??= git.mergeBase(commit, upstream).then((base) => base === commit));
    // One diff per commit compared from (usually one for the whole clone), shared by its plugins.
    const diffs = new Map<string, Promise<string[] | null>>();
    const changedSince = (since: string): Promise<string[] | null> => {
      if (!diffs.has(since)) diffs.set(since, this.filesChanged(git, since, upstream, since === commit));
      return diffs.get(since) as Promise<string[] | null>;
    };
    const found: PluginUpstream[] = [];
    for (const entry of plugins) {
      const since = options.since?.(entry) ?? commit;
      const paths = pluginPaths(entry);
      const files = await changedSince(since);
      const changed = files === null ? null : files.filter((file) => inPluginPaths(paths, file));
      const fastForward = changed === null || changed.length === 0 ? null : await canFastForward();
      const behind =
        changed === null || since !== commit
          ? null
          : changed.length === 0
            ? 0
            : fastForward === true
              ? await git.countCommitsTouching(since, upstream, paths)
              : null;
      found.push({ name: entry.name, branch, commit, upstream, behind, fastForward, since, changed });
    }
    return found;
  }

  /** The files that differ from `since` to `upstream`; null when the clone does not hold `since` (a lock from elsewhere). */
  private async filesChanged(git: PluginGit, since: string, upstream: string, checkedOut: boolean): Promise<string[] | null> {
    if (since === upstream) return [];
    // The commit the clone is at is in it; only another one (a lock's from elsewhere) is asked for.
    if (!checkedOut && !(await git.hasCommit(since))) return null;
    return git.changedFiles(since, upstream);
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
        `plugin ${entry.name}: its folder plugins/${path.basename(entry.dir)} is missing; uninstall and install it again`,
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
        `${this.describeClone(entry)} has local changes in plugins/${path.basename(entry.dir)} (${shown}); commit, move or discard them, then ${verb} again`,
      );
    }
    return git;
  }

  /** An installed plugin with how it reads now: its format, its manifest, what it gives a session and what it does not. */
  private async report(entry: PluginEntry, earlier?: PluginReading): Promise<PluginInstall> {
    const reading = readPluginLayout({
      places: pluginPlaces(entry.name, entry.root, this.places.dataDir),
      definition: entry.definition,
    });
    const contents = await this.contents.installed(entry.name, earlier);
    return { ...entry, format: reading.format, manifest: reading.manifest, ...contents };
  }

  /**
   * Records where a clone is, for every plugin of it, in the registry and (unless a sync is making
   * this machine match the lock) the lock file at once, when that changed.
   */
  private recordCommit(entry: PluginEntry, commit: string, pinned: boolean, recordInLock = true): void {
    const moved = this.cloneOf(entry).filter((plugin) => plugin.commit !== commit || plugin.pinned !== pinned);
    if (moved.length === 0) return;
    this.registry.transaction(() => {
      for (const plugin of moved) {
        this.registry.setCommit(plugin.name, commit, pinned);
        if (recordInLock) this.lock.record(plugin.name);
      }
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

/** The last part of a repository URL without `.git`, for a shared clone's folder name. */
function repositoryBaseName(url: string): string {
  return (
    url
      .replace(/[?#].*$/, '')
      .replace(/\/+$/, '')
      .replace(/\.git$/, '')
      .split(/[/:]/)
      .pop() ?? ''
  );
}

/** The entries grouped by the clone they are folders of (their `dir`), in order of first appearance. */
function byClone(entries: readonly PluginEntry[]): PluginEntry[][] {
  const groups = new Map<string, PluginEntry[]>();
  for (const entry of entries) groups.set(entry.dir, [...(groups.get(entry.dir) ?? []), entry]);
  return [...groups.values()];
}

/** A clone held at one commit: no branch to compare with. */
function held(name: string, commit: string): Omit<PluginUpstream, 'since'> {
  return { name, branch: null, commit, upstream: null, behind: null, fastForward: false, changed: null };
}

function submodulesRefused(what: string): PluginRepositoryRefusedError {
  return new PluginRepositoryRefusedError(
    'PLUGIN_HAS_SUBMODULES',
    `${what} has git submodules; a plugin's content must all be in its own repository, so it is refused`,
  );
}

function lstatOrNull(file: string): fs.Stats | null {
  try {
    return trackedFs.lstatSync(file);
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
  return trackedFs.readFileSync(ownerFile).equals(trackedFs.readFileSync(pluginFile));
}

function regularFileInside(file: string, root: string): fs.Stats | null {
  const stat = lstatOrNull(file);
  if (stat === null || !stat.isFile()) return null;
  try {
    return isInside(trackedFs.realpathSync(root), trackedFs.realpathSync(file)) ? stat : null;
  } catch {
    return null;
  }
}

/** Removes folders left empty by a migration, walking up to (not including) `root`. */
function removeEmptyParents(dir: string, root: string): void {
  let current = dir;
  while (current !== root && isInside(root, current)) {
    try {
      trackedFs.rmdirSync(current);
    } catch {
      return;
    }
    current = path.dirname(current);
  }
}
