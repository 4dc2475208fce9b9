import path from 'node:path';
import { type Diagnostic } from '@loadout/kernel';
import { isInside } from '@loadout/files';
import { clientPluginCopy } from './clients/clientPlugins.js';
import type { PhysicalRoot } from './PhysicalRoots.js';
import type { RuntimeAdapter } from './RuntimeAdapter.js';
import type { PlannedChange } from './RuntimePlan.js';
import type { SourceSkill } from './SourceSkill.js';

/** A Loadout skill one physical root should hold, and what becomes of its destination. */
export interface WantedEntry {
  readonly source: SourceSkill;
  /** The writers of the root that load it. */
  readonly wantedBy: readonly string[];
  /** The create, update or adopt that puts it there; absent when it is already there or blocked. */
  readonly change?: PlannedChange;
  /** Something else holds the destination; the wanted bundle cannot be written. */
  readonly blocked?: 'not-a-skill' | 'other-bundle';
  /** Another runtime's conflict over this name holds it back: the change (or `true` for a blocked destination) that is not made. */
  readonly held?: PlannedChange | true;
}

/** What applying does to one physical root. */
export interface RootWritePlan {
  readonly root: PhysicalRoot;
  readonly changes: PlannedChange[];
  /** By folder name. */
  readonly wanted: Map<string, WantedEntry>;
  /** Managed entries that leave (retired or forgotten): gone from every runtime's view. */
  readonly leaving: Set<string>;
  /** Managed entries let go (edited, no longer wanted): they stay as the user's. */
  readonly released: Set<string>;
  /** Findings about the root, for every runtime that writes into it. */
  readonly findings: Diagnostic[];
}

/**
 * Plans one root that Loadout writes into: for each wanted skill its create, update or adoption (or
 * a blocked destination), and for each managed entry nobody wants any more its retirement. Which
 * creates are redundant is decided later, across roots, per runtime.
 */
export function planRootWrites(
  root: PhysicalRoot,
  sources: readonly SourceSkill[],
  adapters: ReadonlyMap<string, RuntimeAdapter>,
): RootWritePlan {
  const plan: RootWritePlan = { root, changes: [], wanted: new Map(), leaving: new Set(), released: new Set(), findings: [] };
  const held = new Set<string>();
  for (const source of sources) {
    if (!root.targets.has(source.target) || source.folderName === null) continue;
    if (source.unreadable !== null) {
      held.add(source.folderName);
      continue;
    }
    // A writer that loads this very skill from its own installed plugin does not want a second copy.
    const wantedBy = root.writers.filter(
      (name) => adapters.get(name)?.refuses(source.facts) === null && clientPluginCopy(adapters.get(name), source) === undefined,
    );
    if (source.problems.length > 0 || wantedBy.length === 0 || plan.wanted.has(source.folderName)) continue;
    if (root.isLoadoutRoot) {
      if (source.realFolder === null || !isInside(root.key, source.realFolder)) {
        plan.findings.push({
          code: 'RUNTIME_ROOT_IS_LOADOUT_ROOT',
          severity: 'warning',
          path: source.sourceEntry,
          message: `skill "${source.folderName}" is not written into ${root.dir}: that folder is one of Loadout's own roots${source.record.folder === null ? ' (a single-file skill there is not read by runtimes; make it a folder with SKILL.md)' : ''}`,
        });
      }
      continue;
    }
    plan.wanted.set(source.folderName, planDestination(root, source, wantedBy));
  }
  for (const entry of plan.wanted.values()) if (entry.change !== undefined) plan.changes.push(entry.change);
  retireUnwanted(plan, held);
  return plan;
}

function planDestination(root: PhysicalRoot, source: SourceSkill, wantedBy: readonly string[]): WantedEntry {
  const folder = source.folderName as string;
  const bundle = source.bundle as NonNullable<SourceSkill['bundle']>;
  const existing = root.entry(folder);
  const recorded = root.manifest?.get(folder);
  const change = (action: PlannedChange['action'], expectedHash: string | null, reason: string): PlannedChange => ({
    kind: 'skill',
    action,
    runtimes: wantedBy,
    name: folder,
    rootDir: root.dir,
    entry: folder,
    hash: bundle.hash,
    expectedHash,
    bundle: action === 'adopt' ? null : bundle,
    source: source.source,
    sourcePath: source.sourceEntry,
    reason,
  });
  if (existing === undefined) {
    if (root.contents.occupied.has(folder)) return { source, wantedBy, blocked: 'not-a-skill' };
    return {
      source,
      wantedBy,
      change: change('create', null, recorded === undefined ? 'wanted, not present' : 'managed, but the folder is gone'),
    };
  }
  const onDisk = existing.hash();
  if (onDisk === bundle.hash) {
    if (recorded?.hash === bundle.hash) return { source, wantedBy };
    return {
      source,
      wantedBy,
      change: change(
        'adopt',
        onDisk,
        recorded === undefined ? 'already holds exactly this bundle' : 'holds the wanted bundle; the manifest was behind',
      ),
    };
  }
  if (recorded !== undefined && onDisk !== null && onDisk === recorded.hash) {
    return { source, wantedBy, change: change('update', onDisk, 'the source changed') };
  }
  // Loadout never overwrites a folder it did not write, or one edited since.
  return { source, wantedBy, blocked: 'other-bundle' };
}

/** Managed entries no one wants here any more: retired, released when edited, forgotten when gone. */
function retireUnwanted(plan: RootWritePlan, held: ReadonlySet<string>): void {
  const { root } = plan;
  // A runtime folder that is one of Loadout's own roots now (a project that is the home folder)
  // holds what Loadout wrote there before as capabilities it reads: nothing there is retired.
  if (root.isLoadoutRoot) return;
  for (const recorded of root.manifest?.entries() ?? []) {
    if (plan.wanted.has(recorded.path) || held.has(recorded.path)) continue;
    const base = {
      kind: 'skill' as const,
      runtimes: root.writers,
      name: recorded.name,
      rootDir: root.dir,
      entry: recorded.path,
      bundle: null,
      source: recorded.source,
      sourcePath: null,
    };
    const scanned = root.entry(recorded.path);
    if (scanned === undefined) {
      plan.changes.push({
        ...base,
        action: 'forget',
        hash: null,
        expectedHash: null,
        reason: 'no longer wanted; the folder is already gone',
      });
      plan.leaving.add(recorded.path);
      continue;
    }
    const onDisk = scanned.hash();
    if (onDisk !== null && onDisk === recorded.hash) {
      plan.changes.push({
        ...base,
        action: 'retire',
        hash: onDisk,
        expectedHash: onDisk,
        reason: 'no longer wanted (off, removed, not writable any more, or its plugin disabled)',
      });
      plan.leaving.add(recorded.path);
      continue;
    }
    plan.changes.push({
      ...base,
      action: 'release',
      hash: onDisk,
      expectedHash: null,
      reason: 'no longer wanted, but edited since Loadout wrote it: left in place, no longer managed',
    });
    plan.released.add(recorded.path);
    plan.findings.push({
      code: 'MANAGED_SKILL_EDITED',
      severity: 'warning',
      path: scanned.dir,
      message: `${path.join(root.dir, recorded.path)} was edited since Loadout wrote it; it is no longer wanted but is kept, and Loadout stops managing it`,
    });
  }
}
