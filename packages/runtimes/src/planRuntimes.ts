import path from 'node:path';
import { type Diagnostic, qualifiedId } from '@loadout/kernel';
import { clientPluginCopy, clientPluginSkillName } from './clients/clientPlugins.js';
import type { PhysicalRoot, RuntimeRoots } from './PhysicalRoots.js';
import { planRootWrites, type RootWritePlan, type WantedEntry } from './planRootWrites.js';
import type { RuntimeAdapter } from './RuntimeAdapter.js';
import type { ChangeReport, PlannedChange, RootReport, RuntimePlanPart, RuntimeStatus } from './RuntimePlan.js';
import { buildRuntimeView, describeCopy, judgeView, type SkillCopy, type SourcesByRealFolder } from './RuntimeView.js';
import { skillNameKey } from './skillNames.js';
import type { SourceSkill } from './SourceSkill.js';

export interface PlanRuntimesInput {
  readonly runtimes: readonly RuntimeRoots[];
  readonly roots: readonly PhysicalRoot[];
  readonly sources: readonly SourceSkill[];
  /** Writes an absolute path the way diagnostics may show it. */
  readonly show: (absolute: string) => string;
}

/** One pass over every runtime with a given set of roots left alone. */
interface Pass {
  readonly plans: Map<string, RootWritePlan>;
  readonly skipped: Set<PlannedChange>;
  readonly views: Map<string, SkillCopy[]>;
}

/**
 * What conflicts keep from being written: a conflicted runtime's own write roots whole
 * (`frozen`), and in every other root it reads, the names it is in conflict over (`names`: root
 * key → name key → the conflicted runtimes).
 */
interface Holds {
  readonly frozen: Set<string>;
  readonly names: Map<string, Map<string, string[]>>;
}

/**
 * Plans the selected runtimes together, per physical root. A judged runtime that would see two
 * bundles of one name gets nothing written: no root Loadout writes for it changes, and no other
 * root it reads gains or loses a copy of that name. That can hold back writes another runtime
 * wanted, which can change what a third runtime sees, so passes repeat until no new conflict
 * appears. Holds only ever grow, so this ends after at most one pass per runtime.
 */
export function planRuntimes(input: PlanRuntimesInput): RuntimePlanPart[] {
  const adapters = new Map(input.runtimes.map((runtime) => [runtime.adapter.name, runtime.adapter]));
  // Only a runtime folder that is one of Loadout's own asks (a real path each): built on first use.
  let byRealFolder: Map<string, SourceSkill> | null = null;
  const sourcesByRealFolder: SourcesByRealFolder = {
    get: (realFolder) => {
      if (byRealFolder === null) {
        byRealFolder = new Map();
        for (const source of input.sources)
          if (source.realFolder !== null && !byRealFolder.has(source.realFolder)) byRealFolder.set(source.realFolder, source);
      }
      return byRealFolder.get(realFolder);
    },
  };
  const holds: Holds = {
    frozen: new Set(input.roots.filter((root) => root.manifestProblem !== null).map((root) => root.key)),
    names: new Map(),
  };
  const conflicts = new Map<string, { findings: Diagnostic[]; view: SkillCopy[] }>();
  let pass: Pass;
  for (;;) {
    pass = runPass(input, adapters, holds, sourcesByRealFolder);
    let grew = false;
    for (const runtime of input.runtimes) {
      const name = runtime.adapter.name;
      if (!runtime.judged || conflicts.has(name)) continue;
      const view = pass.views.get(name) ?? [];
      const verdict = judgeView(name, view, input.show);
      const taken = blockedDestinations(runtime, pass, holds.frozen, input.show);
      if (verdict.conflicts.length === 0 && taken.length === 0) continue;
      conflicts.set(name, { findings: [...verdict.conflicts, ...taken.map((entry) => entry.finding)], view });
      hold(runtime, [...verdict.conflictKeys, ...taken.map((entry) => entry.key)], holds);
      grew = true;
    }
    if (!grew) break;
  }
  return input.runtimes.map((runtime) => partOf(runtime, pass, holds, conflicts, input));
}

/** Holds back what a conflicted runtime's conflict touches. */
function hold(runtime: RuntimeRoots, keys: readonly string[], holds: Holds): void {
  const name = runtime.adapter.name;
  for (const root of runtime.physical) {
    if (root.writers.includes(name)) holds.frozen.add(root.key);
    const held = holds.names.get(root.key) ?? new Map<string, string[]>();
    holds.names.set(root.key, held);
    for (const key of keys) held.set(key, [...(held.get(key) ?? []), name]);
  }
}

function runPass(
  input: PlanRuntimesInput,
  adapters: ReadonlyMap<string, RuntimeAdapter>,
  holds: Holds,
  sourcesByRealFolder: SourcesByRealFolder,
): Pass {
  const plans = new Map<string, RootWritePlan>();
  for (const root of input.roots) {
    if (root.writers.length === 0 || holds.frozen.has(root.key)) continue;
    plans.set(root.key, withoutNames(planRootWrites(root, input.sources, adapters), holds.names.get(root.key)));
  }
  const none = new Set<PlannedChange>();
  const full = new Map(
    input.runtimes.map((runtime) => [runtime.adapter.name, buildRuntimeView(runtime, plans, holds.frozen, none, sourcesByRealFolder)]),
  );
  const skipped = new Set<PlannedChange>();
  // Each runtime's loaded copies by name key, made once: a first apply asks this of every create.
  const byKey = new Map<string, Map<string, SkillCopy[]>>();
  const copiesOf = (name: string, key: string): readonly SkillCopy[] => {
    let keyed = byKey.get(name);
    if (keyed === undefined) {
      keyed = new Map();
      for (const copy of full.get(name) ?? []) {
        if (!copy.loaded || copy.blocked === true) continue;
        const list = keyed.get(copy.key);
        if (list === undefined) keyed.set(copy.key, [copy]);
        else list.push(copy);
      }
      byKey.set(name, keyed);
    }
    return keyed.get(key) ?? [];
  };
  for (const plan of plans.values()) {
    for (const change of plan.changes) {
      if (change.action !== 'create') continue;
      const key = skillNameKey(change.name);
      const needed = change.runtimes.some((name) =>
        needsCreate(
          input.runtimes.find((runtime) => runtime.adapter.name === name),
          copiesOf(name, key),
          change,
        ),
      );
      if (!needed) skipped.add(change);
    }
  }
  // With no create skipped the views are the full ones: built from the same plans, nothing left out.
  const views =
    skipped.size === 0
      ? full
      : new Map(
          input.runtimes.map((runtime) => [
            runtime.adapter.name,
            buildRuntimeView(runtime, plans, holds.frozen, skipped, sourcesByRealFolder),
          ]),
        );
  return { plans, skipped, views };
}

/** A root's plan without any change to the held names: what is there stays as it is. */
function withoutNames(plan: RootWritePlan, held: ReadonlyMap<string, string[]> | undefined): RootWritePlan {
  if (held === undefined || held.size === 0) return plan;
  const isHeld = (name: string): boolean => held.has(skillNameKey(name));
  const heldEntries = new Set(plan.changes.filter((change) => isHeld(change.name)).map((change) => change.entry));
  const wanted = new Map<string, WantedEntry>();
  for (const [folder, entry] of plan.wanted) {
    const changes = entry.change !== undefined || entry.blocked !== undefined;
    wanted.set(
      folder,
      changes && isHeld(entry.source.key) ? { source: entry.source, wantedBy: entry.wantedBy, held: entry.change ?? true } : entry,
    );
  }
  return {
    ...plan,
    changes: plan.changes.filter((change) => !isHeld(change.name)),
    wanted,
    leaving: new Set([...plan.leaving].filter((entry) => !heldEntries.has(entry))),
    released: new Set([...plan.released].filter((entry) => !heldEntries.has(entry))),
  };
}

/** The identical copies of a planned create's bundle that a runtime loads. */
function identicalCopies(view: readonly SkillCopy[], change: PlannedChange): SkillCopy[] {
  const key = skillNameKey(change.name);
  return view.filter((copy) => copy.loaded && copy.blocked !== true && copy.key === key && copy.hash() === change.hash);
}

/**
 * Whether `runtime` needs this create: it has no identical copy already, and among the identical
 * creates in roots it writes itself, this one has the highest precedence. Creates written for other
 * runtimes do not count, so a runtime never depends on a write another runtime could lose.
 */
function needsCreate(runtime: RuntimeRoots | undefined, view: readonly SkillCopy[], change: PlannedChange): boolean {
  if (runtime === undefined) return false;
  const identical = identicalCopies(view, change);
  if (identical.some((copy) => copy.create === undefined)) return false;
  const own = identical.filter((copy) => runtime.physical[copy.rootIndex]?.writers.includes(runtime.adapter.name) === true);
  return own.sort((a, b) => a.rootIndex - b.rootIndex)[0]?.create === change;
}

/** Wanted skills whose destination is taken by something that is not a skill folder. */
function blockedDestinations(
  runtime: RuntimeRoots,
  pass: Pass,
  frozen: ReadonlySet<string>,
  show: (absolute: string) => string,
): { key: string; finding: Diagnostic }[] {
  const found: { key: string; finding: Diagnostic }[] = [];
  for (const root of new Set(runtime.physical)) {
    if (frozen.has(root.key)) continue;
    for (const [folder, wanted] of pass.plans.get(root.key)?.wanted ?? []) {
      if (wanted.blocked !== 'not-a-skill' || !wanted.wantedBy.includes(runtime.adapter.name)) continue;
      const destination = path.join(root.dir, folder);
      found.push({
        key: wanted.source.key,
        finding: {
          code: 'RUNTIME_CONFLICT',
          severity: 'error',
          path: destination,
          message: `${runtime.adapter.name}: skill "${folder}" cannot be written: ${show(destination)} is taken by something that is not a skill folder. Nothing is written for ${runtime.adapter.name}`,
        },
      });
    }
  }
  return found;
}

/** The view once the plan ran, plus the Loadout copies a conflict holds back (marked `held`). */
function viewWithHeld(view: SkillCopy[], conflictView: readonly SkillCopy[] | undefined): SkillCopy[] {
  if (conflictView === undefined) return view;
  const present = new Set(view.map((copy) => `${copy.dir ?? ''}\0${copy.key}`));
  const held = conflictView
    .filter((copy) => (copy.state === 'to-write' || copy.state === 'to-update') && !present.has(`${copy.dir ?? ''}\0${copy.key}`))
    .map((copy): SkillCopy => ({ ...copy, state: 'held' }));
  return [...view, ...held].sort((a, b) => a.rootIndex - b.rootIndex);
}

function partOf(
  runtime: RuntimeRoots,
  pass: Pass,
  holds: Holds,
  conflicts: ReadonlyMap<string, { findings: Diagnostic[]; view: SkillCopy[] }>,
  input: PlanRuntimesInput,
): RuntimePlanPart {
  const name = runtime.adapter.name;
  const view = viewWithHeld(pass.views.get(name) ?? [], conflicts.get(name)?.view);
  const findings: Diagnostic[] = [];
  const writes = [...new Set(runtime.physical.filter((root) => root.writers.includes(name)))];
  const verdict = judgeView(
    name,
    view.filter((copy) => copy.state !== 'held'),
    input.show,
  );
  let status: RuntimeStatus = 'ok';
  if (!runtime.judged) {
    status = 'unconfirmed';
    findings.push({
      code: 'RUNTIME_UNCONFIRMED',
      severity: 'info',
      message: `${name}: how it ranks two skills of one name is not verified; Loadout writes nothing into folders only it reads`,
    });
    findings.push(
      ...verdict.conflicts.map((conflict): Diagnostic => ({ ...conflict, code: 'RUNTIME_CONFLICT_UNCONFIRMED', severity: 'warning' })),
    );
  } else if (conflicts.has(name)) {
    status = 'conflict';
    findings.push(...(conflicts.get(name)?.findings ?? []));
  } else {
    const blocked = [
      ...writes.filter((root) => holds.frozen.has(root.key)).map((root) => frozenFinding(root, name, conflicts, input.show)),
      ...writes.flatMap((root) => heldFindings(root, name, pass, holds, input.show)),
    ];
    if (blocked.length > 0) status = 'blocked';
    findings.push(...blocked);
  }
  const live = writes.filter((root) => !holds.frozen.has(root.key));
  for (const root of live) findings.push(...(pass.plans.get(root.key)?.findings ?? []));
  findings.push(...skippedCreateNotes(runtime, pass, view, input.show), ...verdict.notes);
  const skips = runtime.judged ? skipsOf(runtime, input, view) : { reports: [], findings: [] };
  findings.push(...skips.findings);
  return {
    adapter: runtime.adapter,
    status,
    roots: rootReports(runtime, input.show),
    changes: live
      .flatMap((root) => (pass.plans.get(root.key)?.changes ?? []).filter((change) => !pass.skipped.has(change)))
      .sort((a, b) => rank(runtime, a) - rank(runtime, b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    skips: skips.reports,
    view,
    findings,
    writeRoots: live.map((root) => root.dir),
  };
}

/** Skills this runtime wanted in a root that another runtime's conflict holds back. */
function heldFindings(root: PhysicalRoot, runtime: string, pass: Pass, holds: Holds, show: (absolute: string) => string): Diagnostic[] {
  const held = holds.names.get(root.key);
  if (held === undefined) return [];
  const findings: Diagnostic[] = [];
  for (const entry of pass.plans.get(root.key)?.wanted.values() ?? []) {
    if (entry.held === undefined || !entry.wantedBy.includes(runtime)) continue;
    const by = held.get(entry.source.key) ?? [];
    findings.push({
      code: 'RUNTIME_BLOCKED',
      severity: 'error',
      path: root.dir,
      message: `${runtime}: skill "${entry.source.folderName ?? entry.source.record.id}" is not written into ${show(root.dir)}: ${by.join(', ')} also read${by.length === 1 ? 's' : ''} that folder and would see two bundles of that name`,
    });
  }
  return findings;
}

/** A change's root in the runtime's precedence order. */
function rank(runtime: RuntimeRoots, change: PlannedChange): number {
  return runtime.physical.findIndex((root) => root.dir === change.rootDir);
}

function frozenFinding(
  root: PhysicalRoot,
  runtime: string,
  conflicts: ReadonlyMap<string, unknown>,
  show: (absolute: string) => string,
): Diagnostic {
  if (root.manifestProblem !== null) {
    return {
      code: 'RUNTIME_MANIFEST_INVALID',
      severity: 'error',
      path: root.dir,
      message: `${runtime}: ${show(root.dir)}: ${root.manifestProblem}; nothing is written there`,
    };
  }
  const by = root.writers.filter((writer) => conflicts.has(writer));
  return {
    code: 'RUNTIME_BLOCKED',
    severity: 'error',
    path: root.dir,
    message: `${runtime}: nothing is written into ${show(root.dir)}: ${by.join(', ')} also write${by.length === 1 ? 's' : ''} there and ${by.length === 1 ? 'has' : 'have'} a conflict`,
  };
}

/** Creates this runtime asked for that were left out because it already finds the same bundle. */
function skippedCreateNotes(
  runtime: RuntimeRoots,
  pass: Pass,
  view: readonly SkillCopy[],
  show: (absolute: string) => string,
): Diagnostic[] {
  const notes: Diagnostic[] = [];
  for (const change of pass.skipped) {
    if (!change.runtimes.includes(runtime.adapter.name)) continue;
    const selected = identicalCopies(view, change).sort((a, b) => a.rootIndex - b.rootIndex)[0];
    if (selected === undefined) continue;
    const foreign = selected.owner === 'user' || selected.owner === 'builtin' || selected.owner === 'managed';
    notes.push({
      code: foreign ? 'IDENTICAL_UNMANAGED_KEPT' : 'IDENTICAL_DUPLICATE_SKIPPED',
      severity: 'info',
      path: selected.dir ?? undefined,
      message: `${runtime.adapter.name}: skill "${change.name}": selected ${describeCopy(selected, show, runtime.adapter.name)}; not written to ${show(path.join(change.rootDir, change.entry))}: it would be a byte-identical duplicate`,
    });
  }
  return notes;
}

/**
 * Loadout skills this runtime will not get: those it refuses (its own rule) and those Loadout does
 * not write anywhere (not a valid Agent Skills folder, or one that cannot be read: a link loop, over
 * the limits); and skills it reads in place but refuses. A skipped skill never holds back the rest.
 */
function skipsOf(
  runtime: RuntimeRoots,
  input: PlanRuntimesInput,
  view: readonly SkillCopy[],
): { reports: ChangeReport[]; findings: Diagnostic[] } {
  const name = runtime.adapter.name;
  const targets = new Set(runtime.roots.filter((root) => root.writes !== null).map((root) => root.writes));
  const reports: ChangeReport[] = [];
  const findings: Diagnostic[] = [];
  // The first in-place copy of each source, found once rather than by a search of the view per source.
  const inPlaceBySource = new Map<string, SkillCopy>();
  for (const copy of view)
    if (copy.state === 'in-place' && copy.source !== null && !inPlaceBySource.has(copy.source)) inPlaceBySource.set(copy.source, copy);
  // The first source of each name key, for the plugins' same-named skills that follow it.
  const seen = new Map<string, SourceSkill>();
  for (const source of input.sources) {
    if (!targets.has(source.target)) continue;
    const own = clientPluginCopy(runtime.adapter, source);
    if (own?.registeredByLoadout === true) {
      // The runtime reads the skill's plugin in place, as its own plugin: every copy is its own, none is written.
      reports.push({
        kind: 'skill',
        action: 'skip',
        name: source.folderName ?? source.record.id,
        path: null,
        hash: null,
        source: input.show(source.sourceEntry),
        reason: `${name} reads plugin ${own.plugin} in place (Loadout registered it as ${own.pluginId}) and lists it as "${clientPluginSkillName(runtime.adapter, own)}"; no copy is written`,
      });
      continue;
    }
    const first = seen.get(source.key);
    if (first !== undefined) {
      if (first.record.plugin !== source.record.plugin && source.record.plugin !== null) {
        const report = samePluginNameSkip(name, source, first, input.show);
        reports.push(report.report);
        findings.push(report.finding);
      }
      continue;
    }
    seen.set(source.key, source);
    const inPlace = inPlaceBySource.get(source.sourceEntry);
    const refusal =
      inPlace !== undefined
        ? inPlace.refusal
        : (runtime.adapter.refuses(source.facts) ??
          (own === undefined
            ? null
            : `${name} loads it already from its own plugin ${own.pluginId} (installed in ${name} itself, as "${clientPluginSkillName(runtime.adapter, own)}"); it is not written twice`));
    const rule =
      source.unreadable !== null
        ? `it cannot be read as a bundle (${source.unreadable}); what ${name} holds of it is left as it is`
        : (refusal ??
          (inPlace === undefined && source.problems.length > 0 ? `not a valid Agent Skills folder (${source.problems.join('; ')})` : null));
    const shown = source.folderName ?? source.record.id;
    if (rule === null) {
      if (source.notPortable.length > 0) findings.push(notPortableFinding(name, shown, source, input));
      continue;
    }
    reports.push({
      kind: 'skill',
      action: 'skip',
      name: shown,
      path: null,
      hash: null,
      source: input.show(source.sourceEntry),
      reason: rule,
    });
    findings.push({
      code: 'SKILL_SKIPPED',
      severity: 'warning',
      path: source.sourceEntry,
      message: `${name}: skill "${shown}"${fromPlugin(source)} is skipped: ${rule}`,
    });
  }
  return { reports, findings };
}

/**
 * A plugin's skill whose name an earlier source (another plugin's, in install order) already
 * takes: a skills folder holds one folder of a name, so the copy is not written. Both clients list
 * plugins' same-named skills side by side only when they load them as plugins (see
 * docs/decisions/plugins.md); the plan says so instead of dropping it.
 */
function samePluginNameSkip(
  runtime: string,
  source: SourceSkill,
  first: SourceSkill,
  show: (absolute: string) => string,
): { report: ChangeReport; finding: Diagnostic } {
  const shown = source.folderName ?? source.record.id;
  const qualified = qualifiedId(source.record);
  const taker = first.record.plugin === null ? "the owner's or the project's" : `plugin ${first.record.plugin}'s`;
  const reason = `${runtime} reads one "${shown}" per skills folder and ${taker} takes the name; ${qualified} is not copied (it reaches ${runtime} under its own name only as a plugin)`;
  return {
    report: { kind: 'skill', action: 'skip', name: shown, path: null, hash: null, source: show(source.sourceEntry), reason },
    finding: {
      code: 'SKILL_SAME_NAME_IN_PLUGINS',
      severity: 'warning',
      path: source.sourceEntry,
      message: `${runtime}: skill "${shown}" from plugin ${source.record.plugin} is skipped: ${reason}`,
    },
  };
}

/**
 * A skill this runtime gets though it breaks Agent Skills rules that real runtimes tolerate: the
 * rules, and which of the planned runtimes load it (their own admission, not the validator's).
 */
function notPortableFinding(runtime: string, shown: string, source: SourceSkill, input: PlanRuntimesInput): Diagnostic {
  const loaders = input.runtimes
    .filter((candidate) => candidate.judged && candidate.adapter.refuses(source.facts) === null)
    .map((candidate) => candidate.adapter.name);
  return {
    code: 'SKILL_NOT_PORTABLE',
    severity: 'warning',
    path: source.sourceEntry,
    message: `${runtime}: skill "${shown}"${fromPlugin(source)} is written though it breaks the Agent Skills rules (${source.notPortable.join('; ')}): ${loaders.join(', ')} load${loaders.length === 1 ? 's' : ''} it; a runtime that keeps to the rules may not`,
  };
}

/** ` from plugin NAME` for a plugin's skill, so every finding names where a skill comes from. */
function fromPlugin(source: SourceSkill): string {
  return source.record.plugin === null ? '' : ` from plugin ${source.record.plugin}`;
}

function rootReports(runtime: RuntimeRoots, show: (absolute: string) => string): RootReport[] {
  return runtime.roots.map((root, index) => {
    const physical = runtime.physical[index] as PhysicalRoot;
    return {
      path: show(root.dir),
      scope: root.scope,
      precedence: index + 1,
      writes: runtime.judged ? root.writes : null,
      exists: root.scope === 'namespaced' ? null : physical.contents.exists,
      note: root.note,
      sharedWith: physical.readers.filter((reader) => reader !== runtime.adapter.name),
    };
  });
}
