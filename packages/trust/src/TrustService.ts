import path from 'node:path';
import { type CapabilityHold, type CapabilityRecord, type Root, SessionLoader, token } from '@loadout/kernel';
import { PluginGit, type PluginEntry, PluginRegistry } from '@loadout/plugins';
import { inject, injectable } from 'tsyringe';
import { type AuditFinding, auditFindings } from './auditFindings.js';
import { approvalKey, RunnableCapabilities } from './RunnableCapabilities.js';
import { PluginNotApprovedError, ProjectNotTrustedError, TrustPluginNotFoundError } from './TrustErrors.js';
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
  /** A unified diff of the runnable parts (task folders, server definitions and the files they run) since `from`. */
  readonly diff: string;
}

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
  /** Records the fingerprint of everything the plugin runs now, at its current commit. */
  approvePlugin(plugin: string): Promise<PluginApprovalResult>;
  diffPlugin(plugin: string): Promise<PluginDiff>;
  /** Every runnable capability of the owner, of `project` (when given) and of every installed plugin. */
  audit(project: string | null): Promise<AuditEntry[]>;
}
export const TrustService = token<TrustService>('trust.service');

interface Found {
  readonly record: CapabilityRecord;
  readonly root: Root;
}

@injectable()
export class StoredTrustService implements TrustService {
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

  async approvePlugin(plugin: string): Promise<PluginApprovalResult> {
    const entry = this.entryOf(plugin);
    const fingerprints = new Map<string, string>();
    const found = this.runnableIn(null, plugin);
    for (const { record, root } of found) {
      const reading = this.runnable.read(record, root);
      if (reading?.ok === true) fingerprints.set(approvalKey(record), reading.fingerprint);
    }
    const approval = await this.store.approvePlugin(plugin, entry.commit, fingerprints);
    return { plugin, commit: approval.commit, approvedAt: approval.approvedAt, approved: await this.describe(null, found) };
  }

  async diffPlugin(plugin: string): Promise<PluginDiff> {
    const entry = this.entryOf(plugin);
    const approval = await this.store.approvalOf(plugin);
    if (approval === null) throw new PluginNotApprovedError(plugin);
    const found = this.runnableIn(null, plugin);
    const sources = new Set<string>();
    for (const { record, root } of found) {
      const reading = this.runnable.read(record, root);
      for (const source of reading?.ok === true ? reading.parts.sources : [record.path]) {
        sources.add(path.relative(entry.dir, source).split(path.sep).join('/') || '.');
      }
    }
    const git = new PluginGit(entry.dir, { allowFileProtocol: false, env: process.env });
    const diff = await git.diffSince(approval.commit, [...sources].sort());
    const described = await this.describe(null, found);
    return { plugin, from: approval.commit, to: entry.commit, held: described.filter((item) => item.status === 'held'), diff };
  }

  async audit(project: string | null): Promise<AuditEntry[]> {
    const real = project === null ? null : SessionLoader.resolveProject(project);
    const found = this.runnableIn(real);
    const described = await this.describe(real, found);
    return described.map((item, index) => {
      const { record, root } = found[index] as Found;
      const reading = this.runnable.read(record, root);
      const owner = record.plugin !== null ? `plugin ${record.plugin}` : record.level === 'project' ? `project ${real ?? ''}` : 'owner';
      return { ...item, owner, findings: reading?.ok === true ? auditFindings(reading.parts, root.dir) : [] };
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
