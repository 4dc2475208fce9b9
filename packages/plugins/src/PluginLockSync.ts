import path from 'node:path';
import { Places, token } from '@loadout/kernel';
import { isLoadoutError, trackedFs } from '@loadout/files';
import { inject, injectable } from 'tsyringe';
import { MarketplaceRegistry } from './MarketplaceRegistry.js';
import { PluginSyncRefusedError } from './PluginErrors.js';
import { PluginLock, type PluginLockDocument, type PluginLockEntry } from './PluginLock.js';
import { PluginManager } from './PluginManager.js';
import { type PluginEntry, PluginRegistry } from './PluginRegistry.js';
import { pluginDataDir } from './readPluginLayout.js';
import { readMarketplaceIndex } from './readMarketplaceIndex.js';

/** One thing a sync does (or, with `--frozen`, would have to do) to make `plugins/` match the lock. */
export interface PluginSyncChange {
  readonly name: string;
  readonly action: 'install' | 'move' | 'enable' | 'disable' | 'redefine' | 'remove';
  /** For a move: the commits. */
  readonly from?: string;
  readonly to?: string;
}

export interface PluginSyncResult {
  /** What was done, in order. */
  readonly changes: readonly PluginSyncChange[];
  /** Plugins that already matched the lock. */
  readonly unchanged: readonly string[];
  /** Whether the plugins' order (their precedence) was set to the lock's. */
  readonly reordered: boolean;
}

/** A plugin whose upstream is past the commit the lock holds it at. */
export interface PluginOutdated {
  readonly name: string;
  readonly locked: string;
  readonly upstream: string;
  /** `branch <name>`, or `marketplace <name>` for a plugin its marketplace entry holds at a commit. */
  readonly via: string;
  /**
   * Commits upstream is ahead that touch the plugin's own files; null when it cannot fast-forward
   * (or the marketplace moved the pin, or the lock's commit is not in this machine's clone).
   */
  readonly behind: number | null;
  /** How many of the plugin's own files differ from upstream; null when that cannot be told. */
  readonly files: number | null;
}

/**
 * Makes `plugins/` match `capabilities/loadout-lock.json` on another machine, and says which
 * plugins have moved upstream since they were locked.
 */
export interface PluginLockSync {
  /**
   * Clones what is missing, moves clones to their recorded commits, sets enabled flags,
   * definitions and order, and removes plugins the lock does not list — never one whose clone has
   * local changes. With `frozen`, changes nothing and fails if anything would have to change.
   */
  sync(options: { frozen: boolean }): Promise<PluginSyncResult>;
  /**
   * Fetches each clone once and lists the plugins whose own files (their folder, or what their
   * whole-definition entry lists) differ between their locked commit and upstream: a commit that
   * touches only another plugin's folder of the same repository leaves a plugin current.
   */
  outdated(): Promise<PluginOutdated[]>;
}
export const PluginLockSync = token<PluginLockSync>('plugins.lockSync');

/** What the plan found for one plugin: changes to make, or why it cannot be made to match. */
interface PlannedPlugin {
  readonly name: string;
  readonly changes: PluginSyncChange[];
  readonly refusal: string | null;
}

@injectable()
export class GitPluginLockSync implements PluginLockSync {
  constructor(
    @inject(PluginLock) private readonly lock: PluginLock,
    @inject(PluginRegistry) private readonly registry: PluginRegistry,
    @inject(PluginManager) private readonly manager: PluginManager,
    @inject(MarketplaceRegistry) private readonly marketplaces: MarketplaceRegistry,
    @inject(Places) private readonly places: Places,
  ) {}

  async sync(options: { frozen: boolean }): Promise<PluginSyncResult> {
    const lock = this.requireLock();
    const plan = await this.plan(lock);
    const pending = plan.filter((planned) => planned.changes.length > 0 || planned.refusal !== null);
    if (options.frozen) {
      const reorder = this.needsReorder(lock);
      if (pending.length > 0 || reorder) {
        const lines = pending.map(
          (planned) => planned.refusal ?? `${planned.name}: would ${planned.changes.map(describeChange).join(', ')}`,
        );
        if (reorder) lines.push('the order of plugins would change');
        throw new PluginSyncRefusedError(
          'PLUGINS_OUT_OF_SYNC',
          `plugins/ does not match ${this.lock.file} (--frozen changes nothing): ${lines.join('; ')}`,
        );
      }
      return { changes: [], unchanged: lock.plugins.map((entry) => entry.name), reordered: false };
    }
    const done: PluginSyncChange[] = [];
    const refused: string[] = plan.flatMap((planned) => (planned.refusal === null ? [] : [planned.refusal]));
    for (const planned of plan) {
      if (planned.refusal !== null) continue;
      const wanted = lock.plugins.find((entry) => entry.name === planned.name);
      for (const change of planned.changes) {
        try {
          await this.apply(change, wanted);
          done.push(change);
        } catch (error) {
          if (!isLoadoutError(error)) throw error;
          refused.push(`${planned.name}: ${error.message}`);
          break;
        }
      }
    }
    const reordered = this.needsReorder(lock);
    if (reordered) this.registry.setOrder(lock.plugins.map((entry) => entry.name));
    for (const entry of lock.plugins)
      if (this.registry.get(entry.name) !== undefined)
        trackedFs.mkdirSync(pluginDataDir(this.places.dataDir, entry.name), { recursive: true });
    if (refused.length > 0) {
      const summary =
        done.length === 0 ? 'nothing was changed' : `done: ${done.map((change) => `${change.name} ${change.action}`).join(', ')}`;
      throw new PluginSyncRefusedError(
        'PLUGINS_SYNC_INCOMPLETE',
        `${refused.length} plugin${refused.length === 1 ? '' : 's'} could not be made to match the lock: ${refused.join('; ')} (${summary})`,
      );
    }
    const changed = new Set(done.map((change) => change.name));
    return { changes: done, unchanged: lock.plugins.map((entry) => entry.name).filter((name) => !changed.has(name)), reordered };
  }

  async outdated(): Promise<PluginOutdated[]> {
    const locked = new Map((this.lock.read()?.plugins ?? []).map((entry) => [entry.name, entry.commit]));
    const found: PluginOutdated[] = [];
    const upstreams = await this.manager.upstream([], { since: (entry) => locked.get(entry.name) ?? entry.commit });
    for (const upstream of upstreams) {
      const commit = upstream.since;
      if (upstream.branch !== null && upstream.upstream !== null) {
        // Upstream moved, but none of this plugin's own files: a commit to another plugin's folder.
        if (upstream.upstream === commit || upstream.changed?.length === 0) continue;
        found.push({
          name: upstream.name,
          locked: commit,
          upstream: upstream.upstream,
          via: `branch ${upstream.branch}`,
          behind: upstream.behind,
          files: upstream.changed?.length ?? null,
        });
        continue;
      }
      const pin = this.marketplacePin(this.registry.get(upstream.name));
      if (pin !== null && pin.sha !== commit)
        found.push({
          name: upstream.name,
          locked: commit,
          upstream: pin.sha,
          via: `marketplace ${pin.marketplace}`,
          behind: null,
          files: null,
        });
    }
    return found;
  }

  /** The commit a plugin's marketplace entry now holds it at (from the marketplace as last updated), if any. */
  private marketplacePin(entry: PluginEntry | undefined): { marketplace: string; sha: string } | null {
    const from = entry?.marketplace;
    if (from === undefined || from === null) return null;
    const row = this.marketplaces.get(from.name);
    if (row === undefined) return null;
    try {
      const source = readMarketplaceIndex(row.dir).entries.find((candidate) => candidate.name === from.plugin)?.source;
      return source?.kind === 'git' && source.sha !== null ? { marketplace: row.name, sha: source.sha } : null;
    } catch {
      return null;
    }
  }

  private requireLock(): PluginLockDocument {
    const lock = this.lock.read();
    if (lock === null)
      throw new PluginSyncRefusedError(
        'PLUGIN_LOCK_MISSING',
        `there is no ${this.lock.file} to sync from; install a plugin (or copy the owner's fork) first`,
      );
    return lock;
  }

  /** What each plugin needs, read from the registry and the clones, changing nothing. */
  private async plan(lock: PluginLockDocument): Promise<PlannedPlugin[]> {
    const plan: PlannedPlugin[] = [];
    for (const wanted of lock.plugins) {
      const row = this.registry.get(wanted.name);
      if (row === undefined) {
        const folder = path.join(this.places.pluginsDir, wanted.name);
        const refusal = trackedFs.existsSync(folder)
          ? `${wanted.name}: plugins/${wanted.name} exists but is not an installed plugin; move it away, then sync again`
          : null;
        plan.push({ name: wanted.name, changes: [{ name: wanted.name, action: 'install', to: wanted.commit }], refusal });
        continue;
      }
      if (row.url !== wanted.source.url || row.path !== wanted.source.path) {
        plan.push({
          name: wanted.name,
          changes: [],
          refusal: `${wanted.name}: installed from ${row.url}${row.path === '' ? '' : ` (${row.path})`} but the lock says ${wanted.source.url}${wanted.source.path === '' ? '' : ` (${wanted.source.path})`}; uninstall it, then sync again`,
        });
        continue;
      }
      const sharer = this.sharesCloneAtAnotherCommit(row, wanted, lock);
      if (sharer !== null) {
        plan.push({
          name: wanted.name,
          changes: [],
          refusal: `${wanted.name}: it shares one clone (plugins/${row.clone}) with ${sharer}, which the lock holds at another commit; uninstall ${wanted.name}, then sync again to give it a clone of its own`,
        });
        continue;
      }
      const changes: PluginSyncChange[] = [];
      if (row.commit !== wanted.commit || row.pinned !== wanted.pinned)
        changes.push({ name: wanted.name, action: 'move', from: row.commit, to: wanted.commit });
      if (row.enabled !== wanted.enabled) changes.push({ name: wanted.name, action: wanted.enabled ? 'enable' : 'disable' });
      if (JSON.stringify(row.definition ?? null) !== JSON.stringify(wanted.definition ?? null))
        changes.push({ name: wanted.name, action: 'redefine' });
      const local = changes.some((change) => change.action === 'move') ? await this.manager.localChanges(wanted.name) : [];
      plan.push({
        name: wanted.name,
        changes,
        refusal:
          local.length > 0 ? `${wanted.name}: its clone has local changes (${local.slice(0, 3).join(', ')}), so it is not moved` : null,
      });
    }
    const listed = new Set(lock.plugins.map((entry) => entry.name));
    for (const row of this.registry.list()) {
      if (listed.has(row.name)) continue;
      const local = await this.manager.localChanges(row.name);
      plan.push({
        name: row.name,
        changes: [{ name: row.name, action: 'remove' }],
        refusal:
          local.length > 0
            ? `${row.name}: the lock does not list it, but its clone has local changes (${local.slice(0, 3).join(', ')}), so it is kept`
            : null,
      });
    }
    return plan;
  }

  /**
   * An earlier plugin of the lock that shares `row`'s clone but is locked at another commit: one
   * clone is at one commit, so moving both would leave one of them off its lock. The first keeps
   * the clone; the later one is refused.
   */
  private sharesCloneAtAnotherCommit(row: PluginEntry, wanted: PluginLockEntry, lock: PluginLockDocument): string | null {
    if (row.clone === null) return null;
    for (const other of lock.plugins) {
      if (other.name === wanted.name) return null;
      if (this.registry.get(other.name)?.clone === row.clone && other.commit !== wanted.commit) return other.name;
    }
    return null;
  }

  private async apply(change: PluginSyncChange, wanted: PluginLockEntry | undefined): Promise<void> {
    switch (change.action) {
      case 'install': {
        const entry = wanted as PluginLockEntry;
        await this.manager.install(entry.source.url, {
          name: entry.name,
          ...(entry.source.ref === null ? {} : { ref: entry.source.ref }),
          ...(entry.source.path === '' ? {} : { path: entry.source.path }),
          commit: entry.commit,
          pin: entry.pinned,
          ...(entry.marketplace === undefined ? {} : { marketplace: entry.marketplace }),
          ...(entry.definition === undefined ? {} : { definition: entry.definition }),
          recordInLock: false,
          // The lock records it as installed: a sync makes this machine match, whatever it loads.
          allowEmpty: true,
        });
        if (!entry.enabled) this.registry.setEnabled(entry.name, false);
        return;
      }
      case 'move': {
        const entry = wanted as PluginLockEntry;
        await this.manager.checkout(entry.name, entry.commit, { pin: entry.pinned, recordInLock: false });
        return;
      }
      case 'enable':
      case 'disable':
        this.registry.setEnabled(change.name, change.action === 'enable');
        return;
      case 'redefine':
        this.registry.setDefinition(change.name, wanted?.definition ?? null);
        return;
      case 'remove':
        this.manager.uninstall(change.name);
        return;
    }
  }

  /** Whether the installed plugins the lock lists are in another order than the lock's. */
  private needsReorder(lock: PluginLockDocument): boolean {
    const installed = this.registry.list().map((entry) => entry.name);
    const locked = lock.plugins.map((entry) => entry.name).filter((name) => installed.includes(name));
    return installed.filter((name) => locked.includes(name)).join('\n') !== locked.join('\n');
  }
}

function describeChange(change: PluginSyncChange): string {
  if (change.action === 'move') return `move from ${change.from?.slice(0, 12)} to ${change.to?.slice(0, 12)}`;
  if (change.action === 'install') return `be installed at ${change.to?.slice(0, 12)}`;
  if (change.action === 'remove') return 'be removed (the lock does not list it)';
  return change.action === 'redefine' ? 'take its marketplace definition from the lock' : `be ${change.action}d`;
}
