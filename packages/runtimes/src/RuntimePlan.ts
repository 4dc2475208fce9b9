import type { Diagnostic } from '@loadout/kernel';
import type { DocumentKind } from './documents/RuntimeDocumentSupport.js';
import type { DocumentPlanPart, DocumentSeen, PlannedDocumentChange } from './documents/planDocuments.js';
import type { PlannedServerChange } from './mcp/PlannedServerChange.js';
import type { McpEntryReport, McpFileReport, McpStatus, ServerPlanPart } from './mcp/planServers.js';
import type { McpSupportStatus } from './mcp/RuntimeMcpSupport.js';
import { BundleStampCache } from './BundleStampCache.js';
import type { ClaudePluginPart } from './clients/claudePluginRegistration.js';
import type { InstalledClient } from './clients/InstalledClients.js';
import type { PathRedactor } from './PathRedactor.js';
import type { RootScope, RuntimeAdapter, SameNameRule, WriteTarget } from './RuntimeAdapter.js';
import type { ManifestSource } from './RuntimeManifest.js';
import type { CopyOwner, CopyState, SkillCopy } from './RuntimeView.js';
import type { SkillBundle } from './SkillBundle.js';

/**
 * What applying does to one entry of one physical root.
 * - `create` writes a skill folder that is not there; `update` replaces Loadout's own unedited copy
 * - `adopt` records a folder that already holds exactly what Loadout would write (e.g. after a
 *   crash between writing the files and the manifest)
 * - `retire` moves a managed folder no longer wanted into the trash
 * - `release` stops managing a folder the user edited and no one wants any more (it stays)
 * - `forget` drops a manifest entry whose folder is already gone
 */
export type ChangeAction = 'create' | 'update' | 'adopt' | 'retire' | 'release' | 'forget';

/**
 * What a managed entry is: a skill folder, a server entry in a runtime's MCP configuration, an
 * agent's or command's file, or a hook entry in a runtime's settings.
 */
export type ManagedKind = 'skill' | 'server' | DocumentKind;

/** One change to a skill folder, with the absolute paths and bytes the executor needs. Never printed as is. */
export interface PlannedChange {
  readonly kind: 'skill';
  readonly action: ChangeAction;
  /** The runtimes this change serves: every judged runtime that writes into the root and wants it. */
  readonly runtimes: readonly string[];
  /** The name the runtime lists it under (the folder's name). */
  readonly name: string;
  /** Absolute path of the physical root. */
  readonly rootDir: string;
  /** The folder inside the root, one segment. */
  readonly entry: string;
  /** The bundle hash the folder holds after the change (or held, for retire and release). */
  readonly hash: string | null;
  /** The hash the folder must still have when the change runs (update, retire, adopt). */
  readonly expectedHash: string | null;
  /** What to write, for create and update. */
  readonly bundle: SkillBundle | null;
  /** The Loadout skill behind it, for the manifest. */
  readonly source: ManifestSource | null;
  /** The source's absolute path, for diagnostics. */
  readonly sourcePath: string | null;
  readonly reason: string;
}

/** A discovery root as the plan reports it. */
export interface RootReport {
  readonly path: string;
  readonly scope: RootScope;
  /** 1 is the highest. */
  readonly precedence: number;
  readonly writes: WriteTarget | null;
  readonly exists: boolean | null;
  readonly note: string;
  /** The other selected runtimes that read the same folder: one write serves them all. */
  readonly sharedWith: readonly string[];
}

/** A change as the plan reports it: redacted paths, a short hash. `skip` is a skill a runtime will not get. */
export interface ChangeReport {
  /** `plugin`: an entry registering a Loadout plugin in the runtime's own settings, read in place. */
  readonly kind: ManagedKind | 'plugin';
  readonly action: ChangeAction | 'skip';
  /** Why a document is skipped, as a code (`LOADED_IN_PLACE`, `HOOK_EVENT_UNSUPPORTED` …). */
  readonly code?: string;
  /** The name the runtime lists it under (a server's entry name). */
  readonly name: string;
  /** A server's Loadout id, which differs from `name` when the runtime cannot take the id as it is. */
  readonly id?: string;
  readonly path: string | null;
  readonly hash: string | null;
  readonly source: string | null;
  readonly reason: string;
}

/** One copy of a skill a runtime would see, as reports show it. */
export interface SkillCopyReport {
  readonly name: string;
  /** The folder, redacted; null for a name compiled into the runtime. */
  readonly path: string | null;
  /** Its root's precedence (1 is the highest); compiled-in names come after every root. */
  readonly precedence: number;
  readonly owner: CopyOwner;
  readonly plugin: string | null;
  readonly state: CopyState;
  readonly source: string | null;
}

/**
 * - `ok`: applied (or nothing to do)
 * - `conflict`: the runtime would see two bundles of one name; nothing is written into any root it reads
 * - `blocked`: a root it writes into is left alone (another runtime reading it has a conflict, or
 *   the root's manifest cannot be trusted)
 * - `unconfirmed`: its precedence is not verified; Loadout writes nothing for it
 */
export type RuntimeStatus = 'ok' | 'conflict' | 'blocked' | 'unconfirmed';

export interface RuntimeReport {
  readonly runtime: string;
  readonly verified: boolean;
  readonly verifiedOn: string | null;
  readonly sameName: SameNameRule;
  /** The client found on `PATH` and the measured version the plan used for it; null when none was found or asked. */
  readonly client: InstalledClient | null;
  readonly status: RuntimeStatus;
  readonly roots: readonly RootReport[];
  readonly changes: readonly ChangeReport[];
  /** Every skill the runtime will load once the plan ran, in its precedence order. */
  readonly sees: readonly SkillCopyReport[];
  /** Its MCP configuration: the files, their state, and every server entry in them once the plan ran; null when Loadout does not write it. */
  readonly mcp: McpReport | null;
  /**
   * Every agent, command and hook of Loadout's it will load once the plan ran: those a plugin read
   * in place brings (named as the runtime lists them, `kit:review`) and Loadout's copies; null when
   * the plan did not look at them.
   */
  readonly documents: { readonly sees: readonly DocumentSeen[] } | null;
  /** How each enabled Loadout plugin reaches it (`in place` or `copied: why`); absent for a runtime that cannot read plugins in place. */
  readonly plugins?: readonly PluginPlacementReport[];
  readonly findings: readonly Diagnostic[];
}

/** How one Loadout plugin reaches one runtime, as reports show it. */
export interface PluginPlacementReport {
  readonly plugin: string;
  readonly inPlace: boolean;
  readonly reason: string;
  /** The name the runtime lists its parts under (`kit:alpha`). */
  readonly listedAs: string;
}

/** A runtime's MCP configuration as the plan reports it. */
export interface McpReport {
  readonly status: McpStatus;
  /** How Loadout knows this runtime's MCP files: asked through its real client (`verified`) or from its docs. */
  readonly support: McpSupportStatus;
  readonly verifiedOn: string;
  readonly files: readonly McpFileReport[];
  readonly sees: readonly McpEntryReport[];
}

/** The plan as `loadout apply --dry-run --json` prints it. */
export interface PlanReport {
  /** `<project>` when the plan was made for a project, else null. */
  readonly project: string | null;
  /** False when a finding blocks some of it: those runtimes get nothing written, and apply exits 1. */
  readonly ok: boolean;
  readonly changeCount: number;
  readonly runtimes: readonly RuntimeReport[];
  /** Findings about the plan as a whole (state that runtimes cannot express, the environment). */
  readonly findings: readonly Diagnostic[];
}

/** One runtime's part of a plan. */
export interface RuntimePlanPart {
  readonly adapter: RuntimeAdapter;
  readonly status: RuntimeStatus;
  readonly roots: readonly RootReport[];
  /** The changes in the roots it writes into, shared with the other runtimes writing there. */
  readonly changes: readonly PlannedChange[];
  /** Loadout skills it will not get, and why. */
  readonly skips: readonly ChangeReport[];
  /** Every copy it would find once the plan ran, loaded or refused, and those a conflict holds back, in precedence order. */
  readonly view: readonly SkillCopy[];
  readonly findings: readonly Diagnostic[];
  /** Absolute paths of the roots Loadout writes for this runtime, where leftovers are cleaned. */
  readonly writeRoots: readonly string[];
  /** Its MCP configuration's part; null when Loadout does not write it (or it was not selected). */
  readonly mcp?: ServerPlanPart | null;
  /** The installed client the plan was made against; null when none was found. */
  readonly client?: InstalledClient | null;
  /** Its agents, commands and hooks; absent when the plan did not look at them. */
  readonly documents?: DocumentPlanPart | null;
  /** The plugins it reads in place and the settings edits that register them; absent for a runtime that cannot. */
  readonly plugins?: ClaudePluginPart | null;
}

/** A short form of a bundle hash for people: enough to tell two bundles apart. */
export function shortHash(hash: string | null): string | null {
  return hash === null ? null : `sha256:${hash.slice(0, 12)}`;
}

/**
 * What `apply` would do, per runtime: the changes, what each runtime sees afterwards, and the
 * findings. Computed without writing anything; `--dry-run`, `--check`, `apply` and `why` all use
 * the same plan.
 */
export class RuntimePlan {
  constructor(
    readonly project: string | null,
    readonly parts: readonly RuntimePlanPart[],
    readonly findings: readonly Diagnostic[],
    private readonly redactor: PathRedactor,
    /** The stamps of the bundles the plan read; an apply keeps them for the next plan. */
    readonly stamps: BundleStampCache = BundleStampCache.none(),
  ) {}

  /** Every change of every runtime; a change two runtimes share (one root) appears once. */
  changes(): PlannedChange[] {
    return [...new Set(this.parts.flatMap((part) => part.changes))];
  }

  /** Every server entry change of every runtime. */
  serverChanges(): PlannedServerChange[] {
    return this.parts.flatMap((part) => [...(part.mcp?.changes ?? [])]);
  }

  /** Every agent, command and hook change of every runtime. */
  documentChanges(): PlannedDocumentChange[] {
    return this.parts.flatMap((part) => [...(part.documents?.changes ?? [])]);
  }

  /** Every edit registering plugins in a runtime's own settings. */
  pluginChanges(): number {
    return this.parts.reduce((count, part) => count + (part.plugins?.changes.length ?? 0), 0);
  }

  /** Every root Loadout writes into, once. */
  writeRoots(): string[] {
    return [...new Set(this.parts.flatMap((part) => part.writeRoots))];
  }

  /** Findings that keep part of the plan from being applied. */
  blocking(): Diagnostic[] {
    return [
      ...this.findings,
      ...this.parts.flatMap((part) => [
        ...part.findings,
        ...(part.mcp?.findings ?? []),
        ...(part.documents?.findings ?? []),
        ...(part.plugins?.findings ?? []),
      ]),
    ].filter((finding) => finding.severity === 'error');
  }

  get ok(): boolean {
    return this.blocking().length === 0;
  }

  /** The redacted report. */
  report(): PlanReport {
    return {
      project: this.project === null ? null : '<project>',
      ok: this.ok,
      changeCount: this.changes().length + this.serverChanges().length + this.documentChanges().length + this.pluginChanges(),
      runtimes: this.parts.map((part) => ({
        runtime: part.adapter.name,
        verified: part.adapter.verified,
        verifiedOn: part.adapter.verifiedOn,
        sameName: part.adapter.sameName,
        client: part.client ?? null,
        status: part.status,
        roots: part.roots,
        changes: [
          ...part.changes.map((change) => this.reportChange(change)),
          ...part.skips,
          ...(part.mcp?.changes ?? []).map((change) => this.reportServerChange(change)),
          ...(part.mcp?.skips ?? []),
          ...(part.documents?.changes ?? []).map((change) => this.reportDocumentChange(change)),
          ...(part.documents?.skips ?? []),
          ...(part.plugins?.changes ?? []).map(
            (change): ChangeReport => ({
              kind: 'plugin',
              action: change.action,
              name: change.name,
              path: this.redactor.path(change.file),
              hash: null,
              source: null,
              reason: change.reason,
            }),
          ),
        ],
        sees: part.view.filter((copy) => copy.loaded && copy.state !== 'held').map((copy) => this.reportCopy(copy)),
        mcp:
          part.mcp == null
            ? null
            : {
                status: part.mcp.status,
                support: part.mcp.support,
                verifiedOn: part.mcp.verifiedOn,
                files: part.mcp.files,
                sees: part.mcp.sees,
              },
        documents: part.documents == null ? null : { sees: part.documents.sees },
        ...(part.plugins == null
          ? {}
          : {
              plugins: part.plugins.placements.map(({ plugin, inPlace, reason, listedAs }) => ({ plugin, inPlace, reason, listedAs })),
            }),
        findings: [...part.findings, ...(part.mcp?.findings ?? []), ...(part.documents?.findings ?? []), ...(part.plugins?.findings ?? [])],
      })),
      findings: this.findings,
    };
  }

  /** A change as people see it. */
  reportChange(change: PlannedChange): ChangeReport {
    return {
      kind: change.kind,
      action: change.action,
      name: change.name,
      path: this.redactor.path(`${change.rootDir}/${change.entry}`),
      hash: shortHash(change.hash),
      source: change.sourcePath === null ? null : this.redactor.path(change.sourcePath),
      reason: change.reason,
    };
  }

  /** A server entry change as people see it: names and a short hash, never a value. */
  reportServerChange(change: PlannedServerChange): ChangeReport {
    return {
      kind: 'server',
      action: change.action,
      name: change.name,
      id: change.id,
      path: this.redactor.path(change.target.file),
      hash: shortHash(change.hash),
      source:
        change.bridge && change.value !== null
          ? 'loadout mcp (the bridge)'
          : change.sourcePath === null
            ? null
            : this.redactor.path(change.sourcePath),
      reason: change.reason,
    };
  }

  /** An agent, command or hook change as people see it. */
  reportDocumentChange(change: PlannedDocumentChange): ChangeReport {
    return {
      kind: change.kind,
      action: change.action,
      name: change.name,
      path: this.redactor.path(change.file),
      hash: shortHash(change.hash),
      source: change.sourcePath === null ? null : this.redactor.path(change.sourcePath),
      reason: change.reason,
    };
  }

  /** A copy as people see it. */
  reportCopy(copy: SkillCopy): SkillCopyReport {
    return {
      name: copy.name,
      path: copy.dir === null ? null : this.redactor.path(copy.dir),
      precedence: copy.rootIndex + 1,
      owner: copy.owner,
      plugin: copy.plugin,
      state: copy.state,
      source: copy.source === null ? null : this.redactor.path(copy.source),
    };
  }

  toJSON(): PlanReport {
    return this.report();
  }
}
