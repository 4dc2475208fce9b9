import path from 'node:path';
import { CapabilityUntrustedError, collisionKey, Places, SessionLoader, token } from '@loadout/kernel';
import { trackedFs, withFileLock } from '@loadout/files';
import { inject, injectable } from 'tsyringe';
import { RestoreOccupiedError, RuntimeChangedDuringApplyError } from './RuntimeErrors.js';
import { DocumentManifest } from './documents/DocumentManifest.js';
import { DocumentWriter } from './documents/DocumentWriter.js';
import { applyClaudePlugins } from './clients/claudePluginRegistration.js';
import { McpConfigWriter } from './mcp/McpConfigWriter.js';
import { McpManifest } from './mcp/McpManifest.js';
import type { PlannedServerChange } from './mcp/PlannedServerChange.js';
import type { BridgeRequest } from './mcp/planServers.js';
import { recordedFileOf } from './mcp/RuntimeMcpSupport.js';
import { RuntimeManifest } from './RuntimeManifest.js';
import type { ChangeReport, ManagedKind, PlannedChange, PlanReport, RuntimePlan } from './RuntimePlan.js';
import { RuntimeEnvironment } from './RuntimeEnvironment.js';
import { type BudgetReport, ListingBudget } from './listing/ListingBudget.js';
import { RuntimePlanner } from './RuntimePlanner.js';
import { type SelectionReport, selectRuntimes } from './RuntimeSelection.js';
import { type DamagedTrashEntry, RuntimeTrash, type SkillTrashEntry, type TrashEntry } from './RuntimeTrash.js';
import { flushWritten, readSkillBundle, writeBundle } from './SkillBundle.js';

/** How `apply` runs: for real, printing the plan, or comparing the folders with the plan. */
export type ApplyMode = 'apply' | 'dry-run' | 'check';

export interface ApplyOptions {
  /** The folder the agent works in; null plans the user's folders only. */
  readonly project?: string | null;
  /**
   * Runtime names; empty means those the owner chose (`loadout runtimes use`), else those detected
   * on this machine (see {@link selectRuntimes}). Unverified ones only report.
   */
  readonly runtimes?: readonly string[];
  readonly mode?: ApplyMode;
  /**
   * Whether Loadout registers itself (`loadout mcp`) as an MCP server in the runtimes' user
   * configuration; absent or null: entries it wrote before stay as they are.
   */
  readonly mcpBridge?: BridgeRequest | null;
}

/** A retired skill or server entry as reports show it. */
export interface RetiredReport {
  readonly id: string;
  readonly kind: ManagedKind;
  readonly name: string;
  readonly runtime: string;
  /** Where it was, redacted: the skill's folder, or the configuration file that held the server. */
  readonly path: string;
  readonly retiredAt: string;
  readonly reason: string;
}

export interface ApplyResult extends PlanReport {
  readonly mode: ApplyMode;
  /**
   * Whether anything was written. A runtime in conflict (and one sharing a root with it) gets
   * nothing; every other runtime is applied, and `ok` is false.
   */
  readonly applied: boolean;
  /** Whether the runtime folders already match the plan (nothing to change, nothing blocking). */
  readonly upToDate: boolean;
  /** Entries moved to the trash by this run; `loadout apply restore ID` brings one back. */
  readonly retired: readonly RetiredReport[];
  /** Which runtimes were planned and why the others were not. */
  readonly selection: SelectionReport;
  /** Under `--dry-run`: one line per runtime whose listing rules are measured, e.g. `Codex lists 412 skills: …`. */
  readonly listings?: readonly string[];
}

/** The dry run's listing lines: one per runtime whose rules are measured, and the ledger's finding when it could not rank them. */
function listingLines(budget: BudgetReport): string[] {
  const lines = budget.runtimes.filter((runtime) => runtime.rules.observed).map((runtime) => runtime.summary);
  return budget.usageProblem === null ? lines : [...lines, budget.usageProblem];
}

/** What `apply restore` lists. */
export interface RetiredListing {
  readonly retired: readonly RetiredReport[];
  readonly damaged: readonly DamagedTrashEntry[];
}

/**
 * Writes a session's skills into agent runtimes: plans (see {@link RuntimePlanner}) and executes the
 * plan under an inter-process lock, or only reports it. Also lists and restores retired skills.
 *
 * @example
 * const result = await applier.apply({ project: '/work/app', mode: 'check' });
 * if (!result.upToDate) process.exitCode = 1;
 */
export interface RuntimeApplier {
  apply(options?: ApplyOptions): Promise<ApplyResult>;
  /**
   * Retired skills and server entries in the trash, newest first, and the trash entries that
   * cannot be read (with what is wrong with each), which restore refuses.
   */
  listRetired(): RetiredListing;
  /** Puts a retired skill or server entry back where it was, managed again. Never overwrites. */
  restore(id: string): Promise<{ restored: RetiredReport }>;
}
export const RuntimeApplier = token<RuntimeApplier>('runtimes.applier');

/** The folder inside a runtime root where new skill folders are assembled before the rename. */
export const STAGING_FOLDER = '.loadout-staging';
/** The lock is the folder `runtimes.lock` in the data folder. */
const LOCK_NAME = 'runtimes';

@injectable()
export class SkillRuntimeApplier implements RuntimeApplier {
  constructor(
    @inject(SessionLoader) private readonly loader: SessionLoader,
    @inject(Places) private readonly places: Places,
    @inject(RuntimePlanner) private readonly planner: RuntimePlanner,
    @inject(RuntimeEnvironment) private readonly env: RuntimeEnvironment,
    @inject(ListingBudget) private readonly budget: ListingBudget,
  ) {}

  async apply(options: ApplyOptions = {}): Promise<ApplyResult> {
    const mode = options.mode ?? 'apply';
    if (mode !== 'apply') {
      const { plan, selection } = await this.makePlan(options);
      const report = plan.report();
      const listings = mode === 'dry-run' ? listingLines(await this.budget.fromPlan(plan)) : undefined;
      return {
        ...report,
        mode,
        applied: false,
        upToDate: report.ok && report.changeCount === 0,
        retired: [],
        selection,
        ...(listings === undefined ? {} : { listings }),
      };
    }
    return this.locked(async () => {
      const { plan, selection } = await this.makePlan(options);
      const report = plan.report();
      const retired = [...(await this.execute(plan)), ...(await this.executeServers(plan)), ...this.executeDocuments(plan)];
      this.executePlugins(plan);
      // A refused apply leaves every file as it was, the stamps cache included.
      if (report.ok || report.changeCount > 0) plan.stamps.save();
      return { ...report, mode, applied: report.changeCount > 0, upToDate: report.ok && report.changeCount === 0, retired, selection };
    });
  }

  listRetired(): RetiredListing {
    const trash = new RuntimeTrash(this.places.dataDir);
    return { retired: trash.list().map((entry) => this.retiredReport(entry)), damaged: trash.damaged() };
  }

  async restore(id: string): Promise<{ restored: RetiredReport }> {
    return this.locked(async () => {
      const trash = new RuntimeTrash(this.places.dataDir);
      const entry = trash.get(id);
      await this.refuseHeldSource(entry);
      if (entry.kind === 'server') {
        await this.serverWriter(trash, entry.project).restore(entry);
        return { restored: this.retiredReport(entry) };
      }
      if (entry.kind !== 'skill') {
        this.documentWriter(trash, entry.project).restore(entry);
        return { restored: this.retiredReport(entry) };
      }
      const target = path.join(entry.rootDir, entry.entry);
      if (trackedFs.lstatSync(target, { throwIfNoEntry: false }) !== undefined) {
        throw new RestoreOccupiedError(this.planner.redactor(entry.project).path(target));
      }
      trackedFs.mkdirSync(entry.rootDir, { recursive: true });
      trash.takeOut(entry, target);
      const manifest = RuntimeManifest.read(entry.rootDir);
      const hash = readSkillBundle(entry.rootDir, target)?.hash ?? entry.hash;
      manifest.set({
        kind: entry.kind,
        path: entry.entry,
        name: entry.name,
        hash,
        source: entry.source,
        writtenAt: new Date().toISOString(),
      });
      manifest.write();
      return { restored: this.retiredReport(entry) };
    });
  }

  /**
   * A restore writes into a runtime as apply does, so what trust holds now is not put back: the
   * capability the entry was written from, found where it was (its plugin's root, disabled or
   * not, or the owner's or project's), is asked about whether it is on or not. An entry whose
   * capability is gone has nothing left to hold and is restored as it was kept.
   */
  private async refuseHeldSource(entry: TrashEntry): Promise<void> {
    const project = entry.project !== null && trackedFs.existsSync(entry.project) ? SessionLoader.resolveProject(entry.project) : null;
    if (entry.project !== null && project === null) return;
    const roots = this.loader.buildRoots(project, { includeDisabled: true });
    const wanted = collisionKey(entry.source.id);
    const records = this.loader.scanRoots(roots, this.loader.kinds([entry.kind])).records.get(entry.kind) ?? [];
    const record = records.find(
      (candidate) =>
        collisionKey(candidate.id) === wanted && candidate.plugin === entry.source.plugin && candidate.level === entry.source.level,
    );
    if (record === undefined) return;
    const hold = await this.loader.holdOf(record, { project, roots });
    if (hold !== null) throw new CapabilityUntrustedError(record, hold);
  }

  private async makePlan(options: ApplyOptions): Promise<{ plan: RuntimePlan; selection: SelectionReport }> {
    const project = options.project ?? null;
    const redactor = this.planner.redactor(project);
    const { selected, report } = selectRuntimes({
      adapters: this.planner.adapters(),
      env: this.env,
      dataDir: this.places.dataDir,
      named: options.runtimes ?? [],
      show: (absolute) => redactor.path(absolute),
    });
    // The plan reads every skill's SKILL.md whole: the open keeps what it read of them for it.
    const session = await this.loader.open({ project, keepDocuments: true });
    try {
      const names = selected.map((adapter) => adapter.name);
      const plan = await this.planner.plan(session, names, { bridge: options.mcpBridge ?? null, exactly: true });
      return { plan, selection: report };
    } finally {
      session.dispose();
    }
  }

  /**
   * Two applies (or an apply and a restore) never interleave: both take a lock in the data folder,
   * waiting a few seconds for one another.
   */
  private locked<T>(work: () => Promise<T>): Promise<T> {
    return withFileLock(path.join(this.places.dataDir, LOCK_NAME), work, {
      stale: 30_000,
      retries: { retries: 30, factor: 2, minTimeout: 100, maxTimeout: 1000, randomize: false },
    });
  }

  /**
   * Runs the plan root by root. Within a root: retired entries leave first (freeing their names),
   * then new folders are assembled in a hidden staging folder, flushed to disk together and renamed
   * into place, then the
   * manifest is written once. A crash before the manifest leaves folders whose hash is exactly what
   * the next plan wants; that plan adopts them.
   */
  private async execute(plan: RuntimePlan): Promise<RetiredReport[]> {
    const trash = new RuntimeTrash(this.places.dataDir);
    trash.removeIncomplete();
    // A staging folder left by an interrupted run holds nothing anyone reads; clear it everywhere.
    for (const root of plan.writeRoots()) trackedFs.rmSync(path.join(root, STAGING_FOLDER), { recursive: true, force: true });
    const byRoot = new Map<string, PlannedChange[]>();
    for (const change of plan.changes()) {
      // What is written or moved away will not have the stamps it was read with.
      if (change.action === 'create' || change.action === 'update' || change.action === 'retire')
        plan.stamps.forget(path.join(change.rootDir, change.entry));
      const list = byRoot.get(change.rootDir) ?? [];
      list.push(change);
      byRoot.set(change.rootDir, list);
    }
    const order: Record<PlannedChange['action'], number> = { retire: 0, release: 1, forget: 2, update: 3, create: 4, adopt: 5 };
    const retired: RetiredReport[] = [];
    const roots = [...byRoot].map(([rootDir, changes]) => ({
      rootDir,
      changes: changes.sort((a, b) => order[a.action] - order[b.action]),
      staging: path.join(rootDir, STAGING_FOLDER),
      staged: new Map<PlannedChange, string>(),
    }));
    const begun: { manifest: RuntimeManifest; staging: string }[] = [];
    // Each root's flush, started as soon as that root is staged.
    const flushes: Promise<void>[] = [];
    try {
      // Every root's new bundles are staged and made durable before anything is renamed into place.
      // A root's flush (its own `sync` process, waiting on the disk) runs while the next root is
      // staged (the creates, which take the processor), and the renames wait for every flush.
      for (const root of roots) {
        trackedFs.rmSync(root.staging, { recursive: true, force: true });
        begun.push({ manifest: RuntimeManifest.read(root.rootDir), staging: root.staging });
        const written: string[] = [];
        for (const [change, folder] of stageBundles(root.changes, root.staging, written)) root.staged.set(change, folder);
        if (root.staged.size > 0) flushes.push(flushWritten([root.staging], written));
      }
      await Promise.all(flushes);
      roots.forEach((root, index) => {
        const { manifest } = begun[index] as { manifest: RuntimeManifest };
        for (const change of root.changes) {
          const entry = this.executeChange(change, manifest, root.staged, trash, plan);
          if (entry !== null) retired.push(this.retiredReport(entry));
        }
      });
    } catch (error) {
      // A flush still running reads the staging folders that are about to be removed.
      await Promise.allSettled(flushes);
      throw error;
    } finally {
      for (const { manifest, staging } of begun) {
        manifest.write();
        trackedFs.rmSync(staging, { recursive: true, force: true });
      }
    }
    return retired;
  }

  /**
   * Writes the server entries, file by file, after settling what an interrupted run left pending in
   * those files. Each file is its own read-modify-write (see {@link McpConfigWriter}).
   */
  private async executeServers(plan: RuntimePlan): Promise<RetiredReport[]> {
    const planned = plan.parts.flatMap((part) => (part.mcp?.targets ?? []).map((target) => ({ runtime: part.adapter.name, target })));
    if (planned.length === 0) return [];
    const writer = this.serverWriter(new RuntimeTrash(this.places.dataDir), plan.project);
    writer.settle(planned);
    const byFile = new Map<string, PlannedServerChange[]>();
    for (const change of plan.serverChanges()) {
      const key = `${change.runtime}\0${recordedFileOf(change.target)}`;
      byFile.set(key, [...(byFile.get(key) ?? []), change]);
    }
    const retired: RetiredReport[] = [];
    for (const list of byFile.values()) {
      const first = list[0] as PlannedServerChange;
      for (const entry of await writer.apply(first.runtime, first.target, list, plan.project)) retired.push(this.retiredReport(entry));
    }
    return retired;
  }

  /** Writes the agents, commands and hook entries, after skills and servers (see {@link DocumentWriter}). */
  private executeDocuments(plan: RuntimePlan): RetiredReport[] {
    const changes = plan.documentChanges();
    if (changes.length === 0) return [];
    return this.documentWriter(new RuntimeTrash(this.places.dataDir), plan.project)
      .apply(changes, plan.project)
      .map((entry) => this.retiredReport(entry));
  }

  private documentWriter(trash: RuntimeTrash, project: string | null): DocumentWriter {
    const redactor = this.planner.redactor(project);
    return new DocumentWriter(DocumentManifest.read(this.places.dataDir), trash, (absolute) => redactor.path(absolute));
  }

  /**
   * Registers the plugins a runtime reads in place in its own settings, after the copies they
   * replace were retired (a plugin moving from copied to in place is never listed twice).
   */
  private executePlugins(plan: RuntimePlan): void {
    const redactor = this.planner.redactor(plan.project);
    for (const part of plan.parts) if (part.plugins != null) applyClaudePlugins(part.plugins, (absolute) => redactor.path(absolute));
  }

  private serverWriter(trash: RuntimeTrash, project: string | null): McpConfigWriter {
    const redactor = this.planner.redactor(project);
    return new McpConfigWriter(McpManifest.read(this.places.dataDir), trash, (absolute) => redactor.path(absolute));
  }

  private executeChange(
    change: PlannedChange,
    manifest: RuntimeManifest,
    staged: ReadonlyMap<PlannedChange, string>,
    trash: RuntimeTrash,
    plan: RuntimePlan,
  ): SkillTrashEntry | null {
    const target = path.join(change.rootDir, change.entry);
    const shown = (): ChangeReport => plan.reportChange(change);
    const expect = (): void => {
      let actual: string | null;
      try {
        actual = readSkillBundle(change.rootDir, target)?.hash ?? null;
      } catch {
        actual = null;
      }
      if (actual !== change.expectedHash) {
        throw new RuntimeChangedDuringApplyError(`${shown().path} changed while applying; run apply again`);
      }
    };
    const record = (hash: string): void => {
      if (change.source === null) return;
      manifest.set({
        kind: change.kind,
        path: change.entry,
        name: change.name,
        hash,
        source: change.source,
        writtenAt: new Date().toISOString(),
      });
    };
    switch (change.action) {
      case 'retire': {
        expect();
        const entry = trash.retire({
          name: change.name,
          rootDir: change.rootDir,
          entry: change.entry,
          hash: change.expectedHash as string,
          runtime: change.runtimes.join(', '),
          source: change.source ?? { id: change.name, level: 'global', plugin: null },
          project: plan.project,
          reason: change.reason,
        });
        manifest.delete(change.entry);
        return entry;
      }
      case 'release':
      case 'forget':
        manifest.delete(change.entry);
        return null;
      case 'adopt':
        expect();
        record(change.hash as string);
        return null;
      case 'create':
      case 'update': {
        if (change.action === 'create' && trackedFs.lstatSync(target, { throwIfNoEntry: false }) !== undefined) {
          throw new RuntimeChangedDuringApplyError(`${shown().path} appeared while applying; run apply again`);
        }
        if (change.action === 'update') expect();
        const fresh = staged.get(change) as string;
        if (change.action === 'update') {
          const old = `${fresh}-old`;
          trackedFs.renameSync(target, old);
          trackedFs.renameSync(fresh, target);
          trackedFs.rmSync(old, { recursive: true, force: true });
        } else {
          trackedFs.renameSync(fresh, target);
        }
        record(change.hash as string);
        return null;
      }
    }
  }

  private retiredReport(entry: TrashEntry): RetiredReport {
    const where = entry.kind === 'server' ? entry.target.file : 'file' in entry ? entry.file : path.join(entry.rootDir, entry.entry);
    return {
      id: entry.id,
      kind: entry.kind,
      name: entry.name,
      runtime: entry.runtime,
      path: this.planner.redactor(entry.project).path(where),
      retiredAt: entry.retiredAt,
      reason: entry.reason,
    };
  }
}

/**
 * Writes the bundles of a root's creates and updates into its staging folder, adding the files
 * written to `written` (the caller flushes every root's at once). Returns each change's staged folder.
 */
function stageBundles(changes: readonly PlannedChange[], staging: string, written: string[]): Map<PlannedChange, string> {
  const staged = new Map<PlannedChange, string>();
  let made = false;
  for (const change of changes) {
    if (change.action !== 'create' && change.action !== 'update') continue;
    if (!made) trackedFs.mkdirSync(staging, { recursive: true });
    made = true;
    // The staging folder was emptied for this run and each entry is staged once: its name is unique.
    const fresh = path.join(staging, `${change.entry}-${staged.size}`);
    written.push(...writeBundle(fresh, change.bundle as NonNullable<PlannedChange['bundle']>));
    staged.set(change, fresh);
  }
  return staged;
}
