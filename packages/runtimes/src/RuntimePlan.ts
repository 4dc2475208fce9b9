import type { Diagnostic } from '@loadout/kernel';
import type { ManifestSource } from './RuntimeManifest.js';
import type { PathRedactor } from './PathRedactor.js';
import type { RootScope, RuntimeAdapter, SameNameRule, WriteTarget } from './RuntimeAdapter.js';
import type { SkillBundle } from './SkillBundle.js';

/**
 * What applying does to one entry of one runtime root.
 * - `create` writes a skill folder that is not there; `update` replaces Loadout's own unedited copy
 * - `adopt` records a folder that already holds exactly what Loadout would write (e.g. after a
 *   crash between writing the files and the manifest)
 * - `retire` moves a managed folder no longer wanted into the trash
 * - `release` stops managing a folder the user edited and no one wants any more (it stays)
 * - `forget` drops a manifest entry whose folder is already gone
 */
export type ChangeAction = 'create' | 'update' | 'adopt' | 'retire' | 'release' | 'forget';

/** One change, with the absolute paths and bytes the executor needs. Never printed as is. */
export interface PlannedChange {
  readonly action: ChangeAction;
  readonly runtime: string;
  readonly name: string;
  /** Absolute path of the runtime root. */
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
}

/** A change as the plan reports it: redacted paths, a short hash. */
export interface ChangeReport {
  readonly action: ChangeAction;
  readonly name: string;
  readonly path: string;
  readonly hash: string | null;
  readonly source: string | null;
  readonly reason: string;
}

export type RuntimeStatus = 'ok' | 'conflict' | 'unconfirmed';

export interface RuntimeReport {
  readonly runtime: string;
  readonly verified: boolean;
  readonly verifiedOn: string | null;
  readonly sameName: SameNameRule;
  readonly status: RuntimeStatus;
  readonly roots: readonly RootReport[];
  readonly changes: readonly ChangeReport[];
  readonly findings: readonly Diagnostic[];
}

/** The plan as `loadout apply --dry-run --json` prints it. */
export interface PlanReport {
  /** `<project>` when the plan was made for a project, else null. */
  readonly project: string | null;
  /** False when a finding blocks applying: nothing would be written. */
  readonly ok: boolean;
  readonly changeCount: number;
  readonly runtimes: readonly RuntimeReport[];
  /** Findings about the plan as a whole (state that runtimes cannot express). */
  readonly findings: readonly Diagnostic[];
}

/** One runtime's part of a plan. */
export interface RuntimePlanPart {
  readonly adapter: RuntimeAdapter;
  readonly status: RuntimeStatus;
  readonly roots: readonly RootReport[];
  readonly changes: readonly PlannedChange[];
  readonly findings: readonly Diagnostic[];
  /** Absolute paths of the roots Loadout writes for this runtime, where leftovers are cleaned. */
  readonly writeRoots: readonly string[];
}

/** A short form of a bundle hash for people: enough to tell two bundles apart. */
export function shortHash(hash: string | null): string | null {
  return hash === null ? null : `sha256:${hash.slice(0, 12)}`;
}

/**
 * What `apply` would do, per runtime: the changes and the findings. Computed without writing
 * anything; `--dry-run`, `--check` and `apply` all use the same plan.
 */
export class RuntimePlan {
  constructor(
    readonly project: string | null,
    readonly parts: readonly RuntimePlanPart[],
    readonly findings: readonly Diagnostic[],
    private readonly redactor: PathRedactor,
  ) {}

  /** Every change of every runtime; a change two runtimes share (one root) appears once. */
  changes(): PlannedChange[] {
    const seen = new Set<string>();
    const changes: PlannedChange[] = [];
    for (const part of this.parts) {
      for (const change of part.changes) {
        const key = `${change.action}\0${change.rootDir}\0${change.entry}`;
        if (seen.has(key)) continue;
        seen.add(key);
        changes.push(change);
      }
    }
    return changes;
  }

  /** Every root Loadout writes into, once. */
  writeRoots(): string[] {
    return [...new Set(this.parts.flatMap((part) => part.writeRoots))];
  }

  /** Findings that block applying. */
  blocking(): Diagnostic[] {
    return [...this.findings, ...this.parts.flatMap((part) => part.findings)].filter((finding) => finding.severity === 'error');
  }

  get ok(): boolean {
    return this.blocking().length === 0;
  }

  /** The redacted report. */
  report(): PlanReport {
    return {
      project: this.project === null ? null : '<project>',
      ok: this.ok,
      changeCount: this.changes().length,
      runtimes: this.parts.map((part) => ({
        runtime: part.adapter.name,
        verified: part.adapter.verified,
        verifiedOn: part.adapter.verifiedOn,
        sameName: part.adapter.sameName,
        status: part.status,
        roots: part.roots,
        changes: part.changes.map((change) => this.reportChange(change)),
        findings: part.findings,
      })),
      findings: this.findings,
    };
  }

  /** A change as people see it. */
  reportChange(change: PlannedChange): ChangeReport {
    return {
      action: change.action,
      name: change.name,
      path: this.redactor.path(`${change.rootDir}/${change.entry}`),
      hash: shortHash(change.hash),
      source: change.sourcePath === null ? null : this.redactor.path(change.sourcePath),
      reason: change.reason,
    };
  }

  toJSON(): PlanReport {
    return this.report();
  }
}
