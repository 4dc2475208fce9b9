import path from 'node:path';
import { type CapabilityHold, type CapabilityRecord, type Root, SessionLoader, token } from '@loadout/kernel';
import { isInside, pathAndRealPath } from '@loadout/files';
import { PluginGit, type PluginEntry, PluginRegistry } from '@loadout/plugins';
import { inject, injectable } from 'tsyringe';
import { type AuditFinding, auditFindings } from './auditFindings.js';
import { approvalKey, RunnableCapabilities } from './RunnableCapabilities.js';
import { BoundedTurns } from './BoundedTurns.js';
import {
  DiffBusyError,
  PluginApprovalStaleError,
  PluginNotApprovedError,
  ProjectNotTrustedError,
  TrustPluginNotFoundError,
} from './TrustErrors.js';
import { TrustHolder } from './TrustHolder.js';
import { type TrustedProject, TrustStore } from './TrustStore.js';

/** One runnable capability as trust commands show it. */
export interface RunnableCapability {
  readonly kind: string;
  readonly id: string;
  readonly name: string;
  readonly level: 'global' | 'project';
  /** The plugin that provides it, or null for the owner's own (or a project's). */
  readonly plugin: string | null;
  readonly path: string;
  /** What it runs, in one line: the implementation file, or the server's command line (secrets hidden). */
  readonly runs: string;
  /** `approved` (or the owner's own), or `held`, with why. */
  readonly status: 'approved' | 'held';
  readonly held: CapabilityHold | null;
}

/** One line of `loadout audit`. */
export interface AuditEntry extends RunnableCapability {
  /** Whose it is, in words: `owner`, `project /work/app`, `plugin pdf`. */
  readonly owner: string;
  readonly findings: readonly AuditFinding[];
}

/** One runnable capability as a consent dialog lists it: what `audit` says, and every file that runs. */
export interface ConsentEntry extends AuditEntry {
  /** The files whose bytes run, relative to the capability's root (`/`-separated); an absolute path for one outside it. */
  readonly files: readonly string[];
}

/** What approving a plugin lets run, read at one commit: what the Approve… dialog shows and then approves. */
export interface PluginReview {
  readonly plugin: string;
  /** The commit the clone is at: the approval sent back with it covers exactly this. */
  readonly commit: string;
  /** The commit approved last; null when the plugin was never approved. */
  readonly approvedCommit: string | null;
  readonly capabilities: readonly ConsentEntry[];
  /** What changed in what it runs since `approvedCommit` (as `plugins diff`); null when never approved. */
  readonly diff: string | null;
  readonly truncated: boolean;
}

/** What trusting a project lets run: its own tasks, servers and skills with scripts. */
export interface ProjectReview {
  /** The project's real path. */
  readonly project: string;
  readonly trusted: boolean;
  readonly capabilities: readonly ConsentEntry[];
}

export interface PluginApprovalResult {
  readonly plugin: string;
  readonly commit: string;
  readonly approvedAt: string;
  /** What the approval covers: every runnable capability of the plugin as it is now. */
  readonly approved: readonly RunnableCapability[];
}

export interface PluginDiff {
  readonly plugin: string;
  /** The commit approved last. */
  readonly from: string;
  /** The commit the clone is at. */
  readonly to: string;
  /** The runnable capabilities that are held now, with why. */
  readonly held: readonly RunnableCapability[];
  /** A unified diff of the runnable parts (task folders, server definitions and the files they run) since `from`, at most {@link MAX_DIFF_BYTES}. */
  readonly diff: string;
  /** Whether the diff was cut at {@link MAX_DIFF_BYTES}: the rest is seen with `git diff` in the plugin's folder. */
  readonly truncated: boolean;
}

/**
 * The most of a plugin's diff one answer carries (bytes, cut at a line). A person reviews far less
 * at a time; an update that changes more is read with git in the plugin's folder.
 */
export const MAX_DIFF_BYTES = 1024 * 1024;
/** How many diffs are computed at once, and how many more may wait for their turn; past that, `PLUGIN_DIFF_BUSY`. */
export const DIFFS_AT_ONCE = 2;
export const DIFFS_WAITING = 8;

/**
 * The owner's side of trust: trusting projects, approving plugins, seeing what changed and what
 * everything runs. The rule itself is {@link TrustHolder}'s; this service only records decisions
 * and reports.
 */
export interface TrustService {
  trustProject(project: string): Promise<TrustedProject>;
  untrustProject(project: string): Promise<{ path: string; trusted: false }>;
  listTrustedProjects(): Promise<TrustedProject[]>;
  /** Every runnable capability of an installed plugin as it is now, held or not. */
  runnableOfPlugin(plugin: string): Promise<RunnableCapability[]>;
  /**
   * Records the fingerprint of everything the plugin runs now, at its current commit. With
   * `reviewed.commit` (what `diffPlugin` showed as `to`), only when the plugin is still exactly
   * that commit: the clone at it, with no change of its own to what it runs; else
   * `PLUGIN_APPROVAL_STALE` and nothing changes.
   */
  approvePlugin(plugin: string, reviewed?: { readonly commit?: string }): Promise<PluginApprovalResult>;
  diffPlugin(plugin: string): Promise<PluginDiff>;
  /** Every runnable capability of the owner, of `project` (when given) and of every installed plugin. */
  audit(project: string | null): Promise<AuditEntry[]>;
  /** What approving `plugin` now would let run, with the audit's findings and the diff since its last approval. */
  reviewPlugin(plugin: string): Promise<PluginReview>;
  /** What trusting `project` would let run: its own runnable capabilities, with the audit's findings. */
  reviewProject(project: string): Promise<ProjectReview>;
}
export const TrustService = token<TrustService>('trust.service');

interface Found {
  readonly record: CapabilityRecord;
  readonly root: Root;
}

@injectable()
export class StoredTrustService implements TrustService {
  /** Diffs run git and hold what it prints: a bounded number at once, whoever asks. */
  private readonly diffs = new BoundedTurns(DIFFS_AT_ONCE, DIFFS_WAITING, () => new DiffBusyError());

  constructor(
    @inject(TrustStore) private readonly store: TrustStore,
    @inject(SessionLoader) private readonly loader: SessionLoader,
    @inject(PluginRegistry) private readonly registry: PluginRegistry,
    @inject(RunnableCapabilities) private readonly runnable: RunnableCapabilities,
    @inject(TrustHolder) private readonly holder: TrustHolder,
  ) {}

  async trustProject(project: string): Promise<TrustedProject> {
    return this.store.trustProject(SessionLoader.resolveProject(project));
  }

  async untrustProject(project: string): Promise<{ path: string; trusted: false }> {
    const real = SessionLoader.resolveProject(project);
    if (!(await this.store.untrustProject(real))) throw new ProjectNotTrustedError(real);
    return { path: real, trusted: false };
  }

  listTrustedProjects(): Promise<TrustedProject[]> {
    return this.store.listTrustedProjects();
  }

  async runnableOfPlugin(plugin: string): Promise<RunnableCapability[]> {
    this.entryOf(plugin);
    return this.describe(null, this.runnableIn(null, plugin));
  }

  async approvePlugin(plugin: string, reviewed: { readonly commit?: string } = {}): Promise<PluginApprovalResult> {
    const entry = this.entryOf(plugin);
    const fingerprints = new Map<string, string>();
    const found = this.runnableIn(null, plugin);
    if (reviewed.commit !== undefined) await this.checkReviewed(entry, reviewed.commit, this.sourcesOf(entry, found));
    for (const { record, root } of found) {
      const reading = this.runnable.read(record, root);
      if (reading?.ok === true) fingerprints.set(approvalKey(record), reading.fingerprint);
    }
    const approval = await this.store.approvePlugin(plugin, entry.commit, fingerprints);
    return { plugin, commit: approval.commit, approvedAt: approval.approvedAt, approved: await this.describe(null, found) };
  }

  async diffPlugin(plugin: string): Promise<PluginDiff> {
    return this.diffs.run(() => this.computeDiff(plugin));
  }

  private async computeDiff(plugin: string): Promise<PluginDiff> {
    const entry = this.entryOf(plugin);
    const approval = await this.store.approvalOf(plugin);
    if (approval === null) throw new PluginNotApprovedError(plugin);
    const found = this.runnableIn(null, plugin);
    const git = new PluginGit(entry.dir, { allowFileProtocol: false, env: process.env });
    const diff = await git.diffSince(approval.commit, this.sourcesOf(entry, found), MAX_DIFF_BYTES);
    const described = await this.describe(null, found);
    return {
      plugin,
      from: approval.commit,
      to: entry.commit,
      held: described.filter((item) => item.status === 'held'),
      diff: diff.text,
      truncated: diff.truncated,
    };
  }

  async audit(project: string | null): Promise<AuditEntry[]> {
    const real = project === null ? null : SessionLoader.resolveProject(project);
    return (await this.consentEntries(real, this.runnableIn(real))).map(({ files: _files, ...entry }) => entry);
  }

  async reviewPlugin(plugin: string): Promise<PluginReview> {
    const entry = this.entryOf(plugin);
    const found = this.runnableIn(null, plugin);
    const capabilities = await this.consentEntries(null, found);
    const approval = await this.store.approvalOf(plugin);
    if (approval === null) return { plugin, commit: entry.commit, approvedCommit: null, capabilities, diff: null, truncated: false };
    const diff = await this.diffs.run(() =>
      new PluginGit(entry.dir, { allowFileProtocol: false, env: process.env }).diffSince(
        approval.commit,
        this.sourcesOf(entry, found),
        MAX_DIFF_BYTES,
      ),
    );
    return { plugin, commit: entry.commit, approvedCommit: approval.commit, capabilities, diff: diff.text, truncated: diff.truncated };
  }

  async reviewProject(project: string): Promise<ProjectReview> {
    const real = SessionLoader.resolveProject(project);
    const own = this.runnableIn(real).filter(({ record }) => record.level === 'project' && record.plugin === null);
    const trusted = (await this.store.listTrustedProjects()).some((item) => item.path === real);
    return { project: real, trusted, capabilities: await this.consentEntries(real, own) };
  }

  /** `found` as `audit` describes it, each with the files that run. */
  private async consentEntries(real: string | null, found: readonly Found[]): Promise<ConsentEntry[]> {
    const described = await this.describe(real, found);
    return described.map((item, index) => {
      const { record, root } = found[index] as Found;
      const reading = this.runnable.read(record, root);
      const owner = record.plugin !== null ? `plugin ${record.plugin}` : record.level === 'project' ? `project ${real ?? ''}` : 'owner';
      const files = reading?.ok === true ? reading.parts.files.map((file) => shownFile(root.dir, file)) : [];
      return { ...item, owner, files, findings: reading?.ok === true ? auditFindings(reading.parts, root.dir) : [] };
    });
  }

  /**
   * Every runnable record of the roots for `project` (of one plugin's roots only, when named),
   * disabled plugins included, every copy (shadowed too). Only the kinds that run something are
   * read (tasks, servers, and skills, of which only those with scripts or tool grants are listed).
   */
  private runnableIn(project: string | null, plugin?: string): Found[] {
    const all = this.loader.buildRoots(project, { includeDisabled: true });
    const roots = plugin === undefined ? all : all.filter((root) => root.plugin === plugin);
    const found: Found[] = [];
    for (const records of this.loader.scanRoots(roots, this.runnable.runnableKinds()).records.values()) {
      for (const record of records) {
        if (!this.runnable.isRunnable(record)) continue;
        const root = roots.find((candidate) => candidate.level === record.level && candidate.plugin === record.plugin);
        // A record that only may run something (an owner's folder skill) is listed when it does.
        if (root !== undefined && this.runnable.read(record, root) !== null) found.push({ record, root });
      }
    }
    return found;
  }

  /**
   * The files and folders of the plugin's clone that declare or hold what its runnable
   * capabilities run, `/`-separated and sorted: what a diff is limited to. Files reached through
   * links or references may be named by their real path; one outside the clone has no history in it.
   */
  private sourcesOf(entry: PluginEntry, found: readonly Found[]): string[] {
    const sources = new Set<string>();
    const clone = pathAndRealPath(entry.dir);
    for (const { record, root } of found) {
      const reading = this.runnable.read(record, root);
      for (const source of reading?.ok === true ? reading.parts.sources : [record.path]) {
        const base = clone.find((dir) => isInside(dir, source));
        if (base !== undefined) sources.add(path.relative(base, source).split(path.sep).join('/') || '.');
      }
    }
    return [...sources].sort();
  }

  /** Refuses unless the clone is at `commit` and holds no change of its own to any of `sources`. */
  private async checkReviewed(entry: PluginEntry, commit: string, sources: readonly string[]): Promise<void> {
    const git = new PluginGit(entry.dir, { allowFileProtocol: false, env: process.env });
    const head = (await git.head()).commit;
    if (head !== commit || entry.commit !== commit) {
      throw new PluginApprovalStaleError(entry.name, `it is at ${head.slice(0, 12)} now, not at the reviewed ${commit.slice(0, 12)}`);
    }
    const changed = (await git.changedPaths()).filter((changedPath) =>
      sources.some((source) => source === '.' || changedPath === source || changedPath.startsWith(`${source}/`)),
    );
    if (changed.length > 0) {
      const shown = changed.slice(0, 5).join(', ') + (changed.length > 5 ? ` and ${changed.length - 5} more` : '');
      throw new PluginApprovalStaleError(
        entry.name,
        `its clone has changes of its own to what it runs (${shown}) that commit ${commit.slice(0, 12)} does not hold`,
      );
    }
  }

  private async describe(project: string | null, found: readonly Found[]): Promise<RunnableCapability[]> {
    const roots = found.map((item) => item.root).filter((root, index, all) => all.indexOf(root) === index);
    const holds = (await this.holder.forSession({ project, roots }))(found.map((item) => item.record));
    return found.map(({ record, root }) => {
      const reading = this.runnable.read(record, root);
      const held = holds.get(record) ?? null;
      return {
        kind: record.kind,
        id: record.id,
        name: record.name,
        level: record.level,
        plugin: record.plugin,
        path: record.path,
        runs: reading === null ? '' : reading.ok ? reading.parts.summary : `(cannot be read: ${reading.problem})`,
        status: held === null ? 'approved' : 'held',
        held,
      };
    });
  }

  private entryOf(plugin: string): PluginEntry {
    const entry = this.registry.get(plugin);
    if (entry === undefined) throw new TrustPluginNotFoundError(plugin);
    return entry;
  }
}

/** A file as a consent dialog names it: relative to its root when inside it, else whole. */
function shownFile(rootDir: string, file: string): string {
  return isInside(rootDir, file) ? path.relative(rootDir, file).split(path.sep).join('/') : file;
}
