import path from 'node:path';
import { childPath } from '@loadout/files';
import type { Diagnostic } from '@loadout/kernel';
import type { RuntimeRoots } from './PhysicalRoots.js';
import type { RootWritePlan } from './planRootWrites.js';
import type { ManifestSource } from './RuntimeManifest.js';
import type { PlannedChange } from './RuntimePlan.js';
import { clientPluginSkillName } from './clients/clientPlugins.js';
import type { ScannedSkill } from './scanRuntimeRoot.js';
import { skillNameKey } from './skillNames.js';
import { realpathOrSelf, type SourceSkill } from './SourceSkill.js';

/** Who a copy belongs to: Loadout (the owner's skill or a plugin's), the user, the runtime itself, an administrator. */
/** The source skill a folder's real path is, for a runtime folder that is one of Loadout's own (read in place). */
export interface SourcesByRealFolder {
  get(realFolder: string): SourceSkill | undefined;
}

export type CopyOwner = 'loadout' | 'plugin' | 'user' | 'builtin' | 'managed';

/**
 * How a copy comes to be there once the plan ran: already there (`present`, `written` by Loadout
 * earlier, `in-place` in Loadout's own root), written by this plan (`to-write`, `to-update`), the
 * runtime's own (`installed-at-start`, `compiled-in`), or wanted but held back by a conflict
 * (`held`: it is not written, and the runtime will not see it).
 */
export type CopyState =
  | 'present'
  | 'written'
  | 'to-write'
  | 'to-update'
  | 'in-place'
  | 'installed-at-start'
  | 'compiled-in'
  | 'client-plugin'
  | 'held';

/** One copy of a skill name a runtime would find once the plan ran. */
export interface SkillCopy {
  /** The name the runtime lists it under. */
  readonly name: string;
  readonly key: string;
  /** Its root's index in the runtime's roots (precedence order); the roots' count for compiled-in names. */
  readonly rootIndex: number;
  /** Absolute folder; null for a name compiled into the runtime. */
  readonly dir: string | null;
  readonly owner: CopyOwner;
  readonly plugin: string | null;
  readonly state: CopyState;
  /** The Loadout skill behind it, absolute, when there is one. */
  readonly source: string | null;
  /** That skill's capability id. */
  readonly sourceId: string | null;
  /** Whether Loadout wants or manages this copy: only such names are Loadout's business. */
  readonly ours: boolean;
  /** Whether the runtime loads it; false with the reason when it refuses it. */
  readonly loaded: boolean;
  readonly refusal: string | null;
  /** The bundle hash (read on first use); null when unknown. */
  hash(): string | null;
  /** The create behind a `to-write` copy, which may still be skipped as redundant. */
  readonly create?: PlannedChange;
  /** A wanted bundle whose destination holds something else: it cannot be written. */
  readonly blocked?: boolean;
}

/** The owner of a Loadout copy: a plugin's skill is the plugin's. */
function loadoutOwner(plugin: string | null): CopyOwner {
  return plugin === null ? 'loadout' : 'plugin';
}

/**
 * A copy Loadout is to write from `source` under `name` (key `key`) into `dir`, made as one object:
 * a runtime may see 10,000 of them, and fields spread from a second object cost each one two.
 */
function toWrite(
  source: SourceSkill,
  name: string,
  key: string,
  rootIndex: number,
  dir: string | null,
  refusal: string | null,
  hash: () => string | null,
  create?: PlannedChange,
): SkillCopy {
  return {
    owner: loadoutOwner(source.source.plugin),
    plugin: source.source.plugin,
    state: 'to-write',
    source: source.sourceEntry,
    sourceId: source.source.id,
    ours: true,
    name,
    key,
    rootIndex,
    dir,
    loaded: refusal === null,
    refusal,
    hash,
    create,
  };
}

function depthOf(entry: string): number {
  return entry.split('/').length;
}

/**
 * Every copy of every name `runtime` would find after the plan: its roots in precedence order, the
 * plan's changes in the roots that are written (not `frozen`), minus the creates in `skipped`, then
 * the names compiled into it. Copies it refuses are kept with `loaded: false` so `why` can say so.
 */
export function buildRuntimeView(
  runtime: RuntimeRoots,
  plans: ReadonlyMap<string, RootWritePlan>,
  frozen: ReadonlySet<string>,
  skipped: ReadonlySet<PlannedChange>,
  sourcesByRealFolder: SourcesByRealFolder,
): SkillCopy[] {
  const { adapter } = runtime;
  const copies: SkillCopy[] = [];
  runtime.roots.forEach((root, rootIndex) => {
    const physical = runtime.physical[rootIndex];
    if (root.scope === 'namespaced' || physical === undefined) return;
    const live = frozen.has(physical.key) ? undefined : plans.get(physical.key);
    if (!physical.contents.exists) {
      for (const name of root.installs ?? []) {
        copies.push(fixedCopy(name, rootIndex, path.join(root.dir, name), 'installed-at-start'));
      }
    }
    for (const skill of physical.contents.skills) {
      if (depthOf(skill.entry) > root.depth || live?.leaving.has(skill.entry) === true) continue;
      copies.push(
        ...scannedCopies(
          skill,
          rootIndex,
          root.scope,
          physical.isLoadoutRoot,
          live,
          physical.manifest?.get(skill.entry)?.source,
          sourcesByRealFolder,
          (facts) => adapter.refuses(facts),
        ),
      );
    }
    for (const wanted of live?.wanted.values() ?? []) {
      const create = wanted.change;
      if (create?.action !== 'create' || skipped.has(create)) continue;
      const refusal = adapter.refuses(wanted.source.facts);
      const dir = childPath(physical.dir, create.entry);
      copies.push(toWrite(wanted.source, create.name, wanted.source.key, rootIndex, dir, refusal, () => create.hash, create));
    }
  });
  const compiledIn = adapter.compiledIn;
  if (compiledIn !== undefined) {
    // A client version whose skills replace its built-ins lists the built-in only while no loaded skill has its name.
    const named = compiledIn.replacedBySkills === true ? new Set(copies.filter((copy) => copy.loaded).map((copy) => copy.key)) : null;
    for (const name of compiledIn.names) {
      const copy = fixedCopy(name, runtime.roots.length, null, 'compiled-in');
      copies.push(
        named?.has(copy.key) === true
          ? {
              ...copy,
              loaded: false,
              refusal: `replaced by the skill of the same name (${adapter.name} ${compiledIn.version} lists the skill instead)`,
            }
          : copy,
      );
    }
  }
  for (const skill of adapter.clientPlugins ?? []) {
    copies.push({
      ...fixedCopy(clientPluginSkillName(adapter, skill), runtime.roots.length, skill.dir, 'client-plugin'),
      plugin: skill.plugin,
    });
  }
  return copies;
}

/** A skill the runtime brings itself: always loaded, content unknown to Loadout. */
function fixedCopy(
  name: string,
  rootIndex: number,
  dir: string | null,
  state: 'installed-at-start' | 'compiled-in' | 'client-plugin',
): SkillCopy {
  return {
    name,
    key: skillNameKey(name),
    rootIndex,
    dir,
    owner: 'builtin',
    plugin: null,
    state,
    source: null,
    sourceId: null,
    ours: false,
    loaded: true,
    refusal: null,
    hash: () => null,
  };
}

/** A scanned folder as a copy, plus the bundle Loadout wanted there when its destination is blocked. */
function scannedCopies(
  skill: ScannedSkill,
  rootIndex: number,
  scope: RuntimeRoots['roots'][number]['scope'],
  isLoadoutRoot: boolean,
  live: RootWritePlan | undefined,
  managedSource: ManifestSource | undefined,
  sourcesByRealFolder: SourcesByRealFolder,
  refuses: (facts: ScannedSkill['facts']) => string | null,
): SkillCopy[] {
  // A link leading out of its root has unknown content: counted as loaded, so it can never pass for a copy.
  const refusal = skill.realDir === null ? null : refuses(skill.facts);
  const wanted = live?.wanted.get(skill.entry);
  const base = { name: skill.name, key: skillNameKey(skill.name), rootIndex, dir: skill.dir, loaded: refusal === null, refusal };
  if (scope === 'managed' || scope === 'builtin') {
    return [{ ...base, owner: scope, plugin: null, state: 'present', source: null, sourceId: null, ours: false, hash: () => skill.hash() }];
  }
  if (isLoadoutRoot) {
    const source = skill.realDir === null ? undefined : sourcesByRealFolder.get(realpathOrSelf(skill.realDir));
    return [
      {
        ...base,
        owner: loadoutOwner(source?.source.plugin ?? null),
        plugin: source?.source.plugin ?? null,
        state: 'in-place',
        source: source?.sourceEntry ?? null,
        sourceId: source?.source.id ?? null,
        ours: source !== undefined,
        hash: () => skill.hash(),
      },
    ];
  }
  const managed = managedSource !== undefined && live?.released.has(skill.entry) !== true;
  const managedPlugin = managedSource?.plugin;
  const managedSourceId = managedSource?.id;
  if (wanted?.change?.action === 'update' || wanted?.change?.action === 'adopt' || (managed && wanted?.blocked === undefined)) {
    const plugin = wanted?.source.source.plugin ?? managedPlugin ?? null;
    const update = wanted?.change?.action === 'update' ? wanted.change : undefined;
    return [
      {
        ...base,
        owner: loadoutOwner(plugin),
        plugin,
        state: update === undefined ? 'written' : 'to-update',
        source: wanted?.source.sourceEntry ?? null,
        sourceId: wanted?.source.source.id ?? managedSourceId ?? null,
        ours: true,
        hash: () => update?.hash ?? skill.hash(),
      },
    ];
  }
  const copies: SkillCopy[] = [
    { ...base, owner: 'user', plugin: null, state: 'present', source: null, sourceId: null, ours: false, hash: () => skill.hash() },
  ];
  if (wanted?.blocked === 'other-bundle') {
    const bundle = wanted.source.bundle;
    copies.push({ ...toWrite(wanted.source, base.name, base.key, rootIndex, base.dir, null, () => bundle?.hash ?? null), blocked: true });
  }
  return copies;
}

/** What a runtime makes of its view: the blocking conflicts, and what people should know. */
export interface ViewVerdict {
  readonly conflicts: Diagnostic[];
  /** The name keys in conflict. */
  readonly conflictKeys: string[];
  readonly notes: Diagnostic[];
}

const OWNER_WORDS: Record<CopyState, (copy: SkillCopy) => string> = {
  present: (copy) =>
    copy.owner === 'managed' ? "an administrator's" : copy.owner === 'builtin' ? "the runtime's own" : 'not managed by Loadout',
  written: () => 'managed by Loadout',
  'to-write': (copy) => (copy.blocked === true ? 'wanted by Loadout, cannot be written' : 'to be written by Loadout'),
  'to-update': () => 'managed by Loadout, to be updated',
  'in-place': () => "Loadout's source, read in place",
  'installed-at-start': () => 'installed by the runtime at its first start',
  'compiled-in': () => 'compiled into the runtime',
  'client-plugin': (copy) => `a skill of plugin ${copy.plugin ?? '?'} the runtime installed itself`,
  held: () => 'wanted by Loadout, held back by a conflict',
};

/** How a copy is named in findings: where it is and whose it is. */
export function describeCopy(copy: SkillCopy, show: (absolute: string) => string, runtime: string): string {
  const where = copy.dir === null ? `${runtime} itself` : show(copy.dir);
  const from = copy.source === null || copy.state === 'in-place' ? '' : ` from ${show(copy.source)}`;
  const hash = copy.hash();
  return `${where} (${OWNER_WORDS[copy.state](copy)}${from}${hash === null ? '' : `, sha256:${hash.slice(0, 12)}`})`;
}

/**
 * Judges every name Loadout has a stake in: two different bundles (a copy whose content Loadout
 * cannot know, such as a compiled-in skill, counts as different) are a conflict; identical copies
 * are reported. Names Loadout neither wants nor manages are the owner's business.
 */
export function judgeView(runtime: string, copies: readonly SkillCopy[], show: (absolute: string) => string): ViewVerdict {
  const verdict: ViewVerdict = { conflicts: [], conflictKeys: [], notes: [] };
  const byKey = new Map<string, SkillCopy[]>();
  for (const copy of copies) {
    if (!copy.loaded) continue;
    const list = byKey.get(copy.key) ?? [];
    list.push(copy);
    byKey.set(copy.key, list);
  }
  for (const [key, list] of byKey) {
    if (list.length < 2 || !list.some((copy) => copy.ours)) continue;
    const ordered = [...list].sort((a, b) => a.rootIndex - b.rootIndex);
    const bundles = new Set(ordered.map((copy, index) => copy.hash() ?? `unknown-${index}`));
    const name = ordered.find((copy) => copy.ours)?.name ?? (ordered[0] as SkillCopy).name;
    const where = ordered[0]?.dir ?? undefined;
    if (bundles.size > 1) {
      verdict.conflictKeys.push(key);
      verdict.conflicts.push({
        code: 'RUNTIME_CONFLICT',
        severity: 'error',
        message: `${runtime} would see skill "${name}" with ${bundles.size} different bundles: ${ordered.map((copy) => describeCopy(copy, show, runtime)).join('; ')}. Nothing is written for ${runtime}; rename one, make them identical, or turn Loadout's off`,
        ...(where === undefined ? {} : { path: where }),
      });
      continue;
    }
    const [selected, ...rest] = ordered as [SkillCopy, ...SkillCopy[]];
    verdict.notes.push({
      code: 'IDENTICAL_COPIES_VISIBLE',
      severity: 'info',
      message: `${runtime} finds skill "${name}" ${ordered.length} times, identical: ${describeCopy(selected, show, runtime)} first, then ${rest.map((copy) => describeCopy(copy, show, runtime)).join(', ')}`,
      ...(where === undefined ? {} : { path: where }),
    });
  }
  return verdict;
}
