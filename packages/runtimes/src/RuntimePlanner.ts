import fs from 'node:fs';
import path from 'node:path';
import {
  type Diagnostic,
  DocumentRefusedError,
  isInside,
  Places,
  type Root,
  type Session,
  SessionLoader,
  token,
} from '@loadout/kernel';
import type { SkillRecord } from '@loadout/skills';
import { inject, injectable, injectAll } from 'tsyringe';
import { findRepositoryRoot } from './findRepositoryRoot.js';
import { PathRedactor } from './PathRedactor.js';
import { type DiscoveryRoot, type RuntimeAdapter, RuntimeAdapters, type WriteTarget } from './RuntimeAdapter.js';
import { RuntimeEnvironment } from './RuntimeEnvironment.js';
import { RuntimeManifestInvalidError, RuntimeUnknownError } from './RuntimeErrors.js';
import { RuntimeManifest } from './RuntimeManifest.js';
import { type PlannedChange, RuntimePlan, type RuntimePlanPart, type RootReport, shortHash } from './RuntimePlan.js';
import { type RootContents, type ScannedSkill, scanRuntimeRoot } from './scanRuntimeRoot.js';
import { readSkillBundle, type SkillBundle } from './SkillBundle.js';

/**
 * Plans writing a session's skills into agent runtimes. For every name one runtime would see, across
 * all of its roots: one managed candidate is written; byte-identical copies converge on one place
 * (the adapter's precedence) and redundant writes are skipped; an identical unmanaged copy is kept
 * and reported; a different bundle under the same name is a conflict and nothing is written; a
 * managed entry no longer wanted is retired.
 *
 * @example
 * const plan = await planner.plan(session, ['claude-code']);
 * if (!plan.ok) console.log(plan.report().runtimes[0].findings);
 */
export interface RuntimePlanner {
  /**
   * Plans for the named runtimes (every adapter when empty; unverified ones report `unconfirmed`).
   * Reads the runtime folders and manifests; writes nothing.
   */
  plan(session: Session, runtimes?: readonly string[]): Promise<RuntimePlan>;
  /** The adapters, in registration order. */
  adapters(): readonly RuntimeAdapter[];
  /** Diagnostic-safe paths for this session. */
  redactor(project: string | null): PathRedactor;
}
export const RuntimePlanner = token<RuntimePlanner>('runtimes.planner');

/** A Loadout skill one root should hold. */
interface WantedSkill {
  readonly record: SkillRecord;
  readonly name: string;
  readonly target: WriteTarget;
  /** The folder (or single file) the skill lives in. */
  readonly sourceEntry: string;
  readonly sourceRoot: Root;
}

/** One copy of a name that a runtime would see once the plan ran. */
interface Candidate {
  readonly rootIndex: number;
  readonly dir: string;
  readonly hash: string | null;
  /** Who put it there. */
  readonly owner: 'source' | 'managed' | 'edited' | 'unmanaged' | 'builtin' | 'planned';
  /** For a planned write that may still be skipped as redundant. */
  readonly change?: PlannedChange;
  /** The Loadout source behind a planned copy. */
  readonly source?: string;
}

const OWNER_WORDS: Record<Candidate['owner'], string> = {
  source: "Loadout's source, read in place",
  managed: 'managed by Loadout',
  edited: 'managed by Loadout, edited since',
  unmanaged: 'not managed by Loadout',
  builtin: "the runtime's own",
  planned: 'to be written by Loadout',
};

@injectable()
export class SkillRuntimePlanner implements RuntimePlanner {
  constructor(
    @inject(SessionLoader) private readonly loader: SessionLoader,
    @inject(Places) private readonly places: Places,
    @inject(RuntimeEnvironment) private readonly env: RuntimeEnvironment,
    @injectAll(RuntimeAdapters) private readonly registered: RuntimeAdapter[],
  ) {}

  adapters(): readonly RuntimeAdapter[] {
    return this.registered;
  }

  redactor(project: string | null): PathRedactor {
    const { env, places } = this;
    const repository = project === null ? null : findRepositoryRoot(project);
    return new PathRedactor([
      { dir: env.home, label: '~' },
      ...(env.claudeConfigDirFromEnv ? [{ dir: env.claudeConfigDir, label: '$CLAUDE_CONFIG_DIR' }] : []),
      ...(env.codexHomeFromEnv ? [{ dir: env.codexHome, label: '$CODEX_HOME' }] : []),
      { dir: env.codexSystemDir, label: '<codex-admin>' },
      { dir: places.capabilitiesDir, label: '<capabilities>' },
      { dir: places.pluginsDir, label: '<plugins>' },
      { dir: places.dataDir, label: '<data>' },
      ...(repository === null ? [] : [{ dir: repository, label: '<repo>' }]),
      ...(project === null ? [] : [{ dir: project, label: '<project>' }]),
    ]);
  }

  async plan(session: Session, runtimes: readonly string[] = []): Promise<RuntimePlan> {
    const selected = this.select(runtimes);
    const redactor = this.redactor(session.project);
    // The user's runtime folders serve every project, so what they hold follows the global view;
    // the project's folders follow the project's view.
    const global = session.project === null ? session : await this.loader.open({ project: null });
    try {
      const findings: Diagnostic[] = [];
      const wants = this.wantedSkills(session, global, findings);
      const loadoutSkillFolders = new Set(
        [...session.roots, ...global.roots].map((root) => realpathOrSelf(path.join(root.dir, 'skills'))),
      );
      const bundles = new BundleCache();
      const parts = selected.map((adapter) =>
        adapter.verified
          ? new RuntimePlanning(adapter, session.project, this.env, wants, bundles, loadoutSkillFolders, redactor).plan()
          : unconfirmed(adapter, session.project, this.env, redactor),
      );
      return new RuntimePlan(session.project, parts, findings.map((finding) => redactFinding(finding, redactor)), redactor);
    } finally {
      if (global !== session) global.dispose();
    }
  }

  private select(names: readonly string[]): RuntimeAdapter[] {
    if (names.length === 0) return [...this.registered];
    const known = this.registered.map((adapter) => adapter.name);
    const picked: RuntimeAdapter[] = [];
    for (const name of names) {
      const adapter = this.registered.find((candidate) => candidate.name === name);
      if (adapter === undefined) throw new RuntimeUnknownError(name, known);
      if (!picked.includes(adapter)) picked.push(adapter);
    }
    return picked;
  }

  /**
   * What each kind of root should hold: the project's folders the project's own skills (and global
   * skills turned on for this project only); the user's folders every skill on in the global view.
   */
  private wantedSkills(session: Session, global: Session, findings: Diagnostic[]): WantedSkill[] {
    const wants: WantedSkill[] = [];
    const globalKeys = new Set(global.recordsOf<SkillRecord>('skill').map(recordKey));
    const projectRecords = session.project === null ? [] : session.recordsOf<SkillRecord>('skill');
    const projectIds = new Set(projectRecords.map((record) => record.id));
    for (const record of projectRecords) {
      if (record.level === 'project' || !globalKeys.has(recordKey(record))) {
        wants.push(this.want(record, 'project', session));
      }
    }
    for (const record of global.recordsOf<SkillRecord>('skill')) {
      wants.push(this.want(record, 'user', global));
      if (session.project !== null && !projectIds.has(record.id)) {
        findings.push({
          code: 'SKILL_OFF_IN_PROJECT_ONLY',
          severity: 'warning',
          message: `skill "${record.id}" is off for this project but on globally; a runtime's user folder serves every project, so it stays visible here`,
        });
      }
    }
    return wants;
  }

  private want(record: SkillRecord, target: WriteTarget, session: Session): WantedSkill {
    const entry = record.folder ?? record.path;
    const sourceRoot =
      session.roots.find((root) => root.level === record.level && root.plugin === record.plugin && isInside(root.dir, entry)) ??
      ({ dir: path.dirname(path.dirname(entry)), level: record.level, plugin: record.plugin, writable: false } satisfies Root);
    return { record, name: record.id, target, sourceEntry: entry, sourceRoot };
  }
}

function recordKey(record: SkillRecord): string {
  return `${record.id}\0${record.plugin ?? ''}\0${record.path}`;
}

const entryIndexes = new WeakMap<RootContents, Map<string, ScannedSkill>>();

/** The scanned folder at `entry` (one segment) in a root, looked up by an index built once. */
function entryIn(contents: RootContents, entry: string): ScannedSkill | undefined {
  let index = entryIndexes.get(contents);
  if (index === undefined) {
    index = new Map(contents.skills.map((skill) => [skill.entry, skill]));
    entryIndexes.set(contents, index);
  }
  return index.get(entry);
}

function realpathOrSelf(target: string): string {
  try {
    return fs.realpathSync(target);
  } catch {
    return path.resolve(target);
  }
}

/** Bundles of Loadout's sources, read once per plan however many runtimes want them. */
class BundleCache {
  private readonly read = new Map<string, { bundle: SkillBundle | null; problem: string | null }>();

  get(want: WantedSkill): { bundle: SkillBundle | null; problem: string | null } {
    let result = this.read.get(want.sourceEntry);
    if (result === undefined) {
      try {
        const bundle = readSkillBundle(want.sourceRoot.dir, want.sourceEntry);
        result = { bundle, problem: bundle === null ? 'it disappeared while being read' : null };
      } catch (error) {
        if (!(error instanceof DocumentRefusedError)) throw error;
        result = { bundle: null, problem: `${error.code}: ${error.message}` };
      }
      this.read.set(want.sourceEntry, result);
    }
    return result;
  }
}

function rootReports(roots: readonly DiscoveryRoot[], redactor: PathRedactor, contents?: readonly (RootContents | null)[]): RootReport[] {
  return roots.map((root, index) => ({
    path: redactor.path(root.dir),
    scope: root.scope,
    precedence: index + 1,
    writes: root.writes,
    exists: contents === undefined ? null : (contents[index]?.exists ?? null),
    note: root.note,
  }));
}

function unconfirmed(adapter: RuntimeAdapter, project: string | null, env: RuntimeEnvironment, redactor: PathRedactor): RuntimePlanPart {
  return {
    adapter,
    status: 'unconfirmed',
    roots: rootReports(adapter.discoveryRoots(project, env), redactor),
    changes: [],
    writeRoots: [],
    findings: [
      {
        code: 'RUNTIME_UNCONFIRMED',
        severity: 'info',
        message: `${adapter.name}: how it ranks two skills of one name is not verified; Loadout writes nothing for it`,
      },
    ],
  };
}

function redactFinding(finding: Diagnostic, redactor: PathRedactor): Diagnostic {
  return {
    code: finding.code,
    severity: finding.severity,
    message: redactor.text(finding.message),
    ...(finding.path === undefined ? {} : { path: redactor.path(finding.path) }),
  };
}

/** The planning of one runtime: its roots, what they hold, and what Loadout wants there. */
class RuntimePlanning {
  private readonly roots: DiscoveryRoot[];
  private readonly contents: (RootContents | null)[];
  private readonly manifests: (RuntimeManifest | null)[];
  private readonly findings: Diagnostic[] = [];
  private readonly changes: PlannedChange[] = [];
  /** Every copy of each name the runtime would see after the plan ran. */
  private readonly candidates = new Map<string, Candidate[]>();
  /** Names Loadout wants or manages in this runtime: only their collisions are Loadout's business. */
  private readonly ours = new Set<string>();
  private conflict = false;
  /** Names in conflict: their changes are not planned at all. */
  private readonly conflicted = new Set<string>();
  /** Creates left out as redundant: an identical copy is already visible. */
  private readonly skipped = new Set<PlannedChange>();
  /** Candidates already counted, by absolute folder, so the scan does not add them twice. */
  private readonly counted = new Set<string>();

  constructor(
    private readonly adapter: RuntimeAdapter,
    private readonly project: string | null,
    env: RuntimeEnvironment,
    private readonly wants: readonly WantedSkill[],
    private readonly bundles: BundleCache,
    private readonly loadoutSkillFolders: ReadonlySet<string>,
    private readonly redactor: PathRedactor,
  ) {
    this.roots = adapter.discoveryRoots(project, env);
    this.contents = this.roots.map((root) => (root.scope === 'namespaced' ? null : scanRuntimeRoot(root)));
    this.manifests = this.roots.map((root, index) => this.readManifest(root, index));
  }

  plan(): RuntimePlanPart {
    const wantedAt = new Map<number, Map<string, WantedSkill>>();
    for (const want of this.wants) this.placeWant(want, wantedAt);
    this.reconcileManifests(wantedAt);
    this.addExistingCandidates();
    for (const [name, candidates] of this.candidates) this.resolveName(name, candidates);
    return {
      adapter: this.adapter,
      status: this.conflict ? 'conflict' : 'ok',
      roots: rootReports(this.roots, this.redactor, this.contents),
      changes: this.changes
        .filter((change) => !this.skipped.has(change) && !this.conflicted.has(change.name))
        .sort((a, b) => this.rootIndexOf(a) - this.rootIndexOf(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      findings: this.findings.map((finding) => redactFinding(finding, this.redactor)),
      writeRoots: this.roots.filter((root) => root.writes !== null).map((root) => root.dir),
    };
  }

  private readManifest(root: DiscoveryRoot, index: number): RuntimeManifest | null {
    if (root.writes === null || this.contents[index]?.exists !== true) return null;
    try {
      return RuntimeManifest.read(root.dir);
    } catch (error) {
      if (!(error instanceof RuntimeManifestInvalidError)) throw error;
      this.error('RUNTIME_MANIFEST_INVALID', `${this.adapter.name}: ${this.show(root.dir)}: ${error.message}`, root.dir);
      return null;
    }
  }

  /** Decides what to do about one wanted skill in this runtime. */
  private placeWant(want: WantedSkill, wantedAt: Map<number, Map<string, WantedSkill>>): void {
    const rootIndex = this.roots.findIndex((root) => root.writes === want.target);
    if (rootIndex === -1) return;
    const root = this.roots[rootIndex] as DiscoveryRoot;
    this.ours.add(want.name);
    const inPlace = this.findInPlace(want);
    if (inPlace !== null) {
      this.count(want.name, { ...inPlace, owner: 'source' });
      return;
    }
    const wanted = wantedAt.get(rootIndex) ?? new Map<string, WantedSkill>();
    wantedAt.set(rootIndex, wanted);
    if (wanted.has(want.name)) return; // the same name from two views: the project's came first
    wanted.set(want.name, want);
    if (this.loadoutSkillFolders.has(realpathOrSelf(root.dir))) {
      this.warning(
        'RUNTIME_ROOT_IS_LOADOUT_ROOT',
        `${this.adapter.name}: skill "${want.name}" is not written into ${this.show(root.dir)}: that folder is one of Loadout's own roots${want.record.folder === null ? ' (a single-file skill there is not read by this runtime; make it a folder with SKILL.md)' : ''}`,
        want.sourceEntry,
      );
      return;
    }
    const { bundle, problem } = this.bundles.get(want);
    if (bundle === null) {
      this.error('SKILL_UNREADABLE', `skill "${want.name}" at ${this.show(want.sourceEntry)} cannot be read as a bundle: ${problem ?? 'unknown'}`, want.sourceEntry);
      return;
    }
    const contents = this.contents[rootIndex] as RootContents;
    const manifest = this.manifests[rootIndex] ?? null;
    const destination = path.join(root.dir, want.name);
    const existing = entryIn(contents, want.name);
    const recorded = manifest?.get(want.name);
    const source = { id: want.record.id, level: want.record.level, plugin: want.record.plugin };
    const change = (action: PlannedChange['action'], expectedHash: string | null, reason: string): PlannedChange => ({
      action,
      runtime: this.adapter.name,
      name: want.name,
      rootDir: root.dir,
      entry: want.name,
      hash: bundle.hash,
      expectedHash,
      bundle: action === 'adopt' ? null : bundle,
      source,
      sourcePath: want.sourceEntry,
      reason,
    });
    if (existing === undefined) {
      if (contents.occupied.has(want.name)) {
        this.conflictFound(want.name, `${this.adapter.name}: skill "${want.name}" cannot be written: ${this.show(destination)} is taken by something that is not a skill folder`, destination);
        return;
      }
      const create = change('create', null, recorded === undefined ? 'wanted, not present' : 'managed, but the folder is gone');
      this.changes.push(create);
      this.count(want.name, { rootIndex, dir: destination, hash: bundle.hash, owner: 'planned', change: create, source: want.sourceEntry });
      return;
    }
    const onDisk = existing.hash();
    if (onDisk === bundle.hash) {
      if (recorded?.hash === bundle.hash) {
        this.count(want.name, { rootIndex, dir: destination, hash: onDisk, owner: 'managed' });
      } else {
        this.changes.push(change('adopt', onDisk, recorded === undefined ? 'already holds exactly this bundle' : 'holds the wanted bundle; the manifest was behind'));
        this.count(want.name, { rootIndex, dir: destination, hash: onDisk, owner: 'managed' });
      }
      return;
    }
    if (recorded !== undefined && onDisk !== null && onDisk === recorded.hash) {
      const update = change('update', onDisk, 'the source changed');
      this.changes.push(update);
      this.count(want.name, { rootIndex, dir: destination, hash: bundle.hash, owner: 'managed', change: update });
      return;
    }
    // Loadout never overwrites a folder it did not write, or one edited since; the name stays
    // visible with another bundle, which is a conflict for this runtime.
    this.count(want.name, { rootIndex, dir: destination, hash: onDisk, owner: recorded === undefined ? 'unmanaged' : 'edited' });
    this.count(want.name, { rootIndex, dir: destination, hash: bundle.hash, owner: 'planned', source: want.sourceEntry }, false);
  }

  /** The scanned folder that is the wanted skill's own source, when the runtime reads it in place. */
  private findInPlace(want: WantedSkill): { rootIndex: number; dir: string; hash: string | null } | null {
    if (want.record.folder === null) return null;
    const found = this.byRealPath().get(realpathOrSelf(want.sourceEntry));
    return found === undefined ? null : { rootIndex: found.rootIndex, dir: found.skill.dir, hash: found.skill.hash() };
  }

  private realPaths: Map<string, { rootIndex: number; skill: ScannedSkill }> | null = null;

  /** Every scanned folder by its real path, the first root's when two roots reach one folder. */
  private byRealPath(): Map<string, { rootIndex: number; skill: ScannedSkill }> {
    if (this.realPaths === null) {
      this.realPaths = new Map();
      this.contents.forEach((contents, rootIndex) => {
        for (const skill of contents?.skills ?? []) {
          if (skill.realDir === null) continue;
          const real = realpathOrSelf(skill.realDir);
          if (!this.realPaths?.has(real)) this.realPaths?.set(real, { rootIndex, skill });
        }
      });
    }
    return this.realPaths;
  }

  /** Managed entries of the roots Loadout writes, that no one wants there any more. */
  private reconcileManifests(wantedAt: Map<number, Map<string, WantedSkill>>): void {
    this.roots.forEach((root, rootIndex) => {
      const manifest = this.manifests[rootIndex];
      if (manifest === null || manifest === undefined) return;
      const wanted = wantedAt.get(rootIndex) ?? new Map<string, WantedSkill>();
      const contents = this.contents[rootIndex] as RootContents;
      for (const recorded of manifest.entries()) {
        this.ours.add(recorded.name);
        if (wanted.has(recorded.path)) continue;
        const base = {
          runtime: this.adapter.name,
          name: recorded.name,
          rootDir: root.dir,
          entry: recorded.path,
          bundle: null,
          source: recorded.source,
          sourcePath: null,
        };
        const scanned = entryIn(contents, recorded.path);
        if (scanned === undefined) {
          this.changes.push({ ...base, action: 'forget', hash: null, expectedHash: null, reason: 'no longer wanted; the folder is already gone' });
          continue;
        }
        const onDisk = scanned.hash();
        this.counted.add(scanned.dir);
        if (onDisk !== null && onDisk === recorded.hash) {
          this.changes.push({ ...base, action: 'retire', hash: onDisk, expectedHash: onDisk, reason: 'no longer wanted (off, removed or its plugin disabled)' });
          continue;
        }
        this.changes.push({ ...base, action: 'release', hash: onDisk, expectedHash: null, reason: 'no longer wanted, but edited since Loadout wrote it: left in place, no longer managed' });
        this.warning(
          'MANAGED_SKILL_EDITED',
          `${this.adapter.name}: ${this.show(scanned.dir)} was edited since Loadout wrote it; it is no longer wanted but is kept, and Loadout stops managing it`,
          scanned.dir,
        );
        this.count(recorded.name, { rootIndex, dir: scanned.dir, hash: onDisk, owner: 'unmanaged' });
      }
    });
  }

  /** Every scanned folder not already accounted for: other copies the runtime would also see. */
  private addExistingCandidates(): void {
    this.contents.forEach((contents, rootIndex) => {
      if (contents === null) return;
      const root = this.roots[rootIndex] as DiscoveryRoot;
      for (const skill of contents.skills) {
        if (this.counted.has(skill.dir)) continue;
        const recorded = this.manifests[rootIndex]?.get(skill.entry);
        const owner: Candidate['owner'] = root.scope === 'builtin' ? 'builtin' : recorded === undefined ? 'unmanaged' : 'managed';
        this.count(skill.name, { rootIndex, dir: skill.dir, hash: this.ours.has(skill.name) ? skill.hash() : null, owner }, true, skill);
      }
    });
  }

  private count(name: string, candidate: Candidate, mark = true, skill?: ScannedSkill): void {
    if (mark) this.counted.add(candidate.dir);
    const list = this.candidates.get(name) ?? [];
    list.push(candidate);
    this.candidates.set(name, list);
    if (skill !== undefined && this.ours.has(name) && skill.hash() === null) {
      this.info('SKILL_FOLDER_UNREADABLE', `${this.adapter.name}: ${this.show(skill.dir)}: ${skill.problem() ?? 'unreadable'}`, skill.dir);
    }
  }

  /**
   * The five cases for one name: a single candidate is simply applied; identical copies converge
   * (redundant writes skipped, an unmanaged copy preferred); different bundles are a conflict.
   */
  private resolveName(name: string, candidates: Candidate[]): void {
    if (!this.ours.has(name)) return; // not Loadout's name: two foreign copies are the owner's business
    const live = candidates.filter((candidate) => candidate.change === undefined || !this.skipped.has(candidate.change));
    if (live.length <= 1) return;
    const hashes = new Set(live.map((candidate, index) => candidate.hash ?? `unreadable-${index}`));
    if (hashes.size > 1) {
      const list = live
        .sort((a, b) => a.rootIndex - b.rootIndex)
        .map((candidate) => {
          const from = candidate.source === undefined ? '' : ` from ${this.show(candidate.source)}`;
          return `${this.show(candidate.dir)} (${OWNER_WORDS[candidate.owner]}${from}, ${shortHash(candidate.hash) ?? 'unreadable'})`;
        })
        .join('; ');
      this.conflictFound(name, `${this.adapter.name} would see skill "${name}" with ${hashes.size} different bundles: ${list}. Nothing is written; rename one or make them identical`, live[0]?.dir);
      return;
    }
    const creates = live.filter((candidate) => candidate.change?.action === 'create');
    const present = live.filter((candidate) => candidate.change?.action !== 'create');
    const byPrecedence = (a: Candidate, b: Candidate): number => a.rootIndex - b.rootIndex;
    if (creates.length > 0) {
      const keep = present.length > 0 ? null : [...creates].sort(byPrecedence)[0];
      for (const create of creates) if (create !== keep && create.change !== undefined) this.skipped.add(create.change);
      const unmanaged = present.filter((candidate) => candidate.owner === 'unmanaged' || candidate.owner === 'builtin');
      const selected = [...(unmanaged.length > 0 ? unmanaged : present.length > 0 ? present : creates)].sort(byPrecedence)[0] as Candidate;
      const ignored = creates.filter((create) => create !== keep).map((create) => this.show(create.dir));
      if (ignored.length > 0) {
        this.info(
          unmanaged.length > 0 ? 'IDENTICAL_UNMANAGED_KEPT' : 'IDENTICAL_DUPLICATE_SKIPPED',
          `${this.adapter.name}: skill "${name}": selected ${this.show(selected.dir)} (${OWNER_WORDS[selected.owner]}); not written to ${ignored.join(', ')}: it would be a byte-identical duplicate`,
          selected.dir,
        );
      }
    }
    const visible = live.filter((candidate) => candidate.change === undefined || !this.skipped.has(candidate.change)).sort(byPrecedence);
    if (visible.length > 1) {
      const [selected, ...rest] = visible as [Candidate, ...Candidate[]];
      const how = this.adapter.sameName === 'all-listed' ? 'lists every copy' : 'uses the first by precedence';
      this.info(
        'IDENTICAL_COPIES_VISIBLE',
        `${this.adapter.name} ${how}: skill "${name}" has ${visible.length} identical copies; selected ${this.show(selected.dir)} (${OWNER_WORDS[selected.owner]}), ignored ${rest.map((candidate) => `${this.show(candidate.dir)} (${OWNER_WORDS[candidate.owner]})`).join(', ')}`,
        selected.dir,
      );
    }
  }

  private rootIndexOf(change: PlannedChange): number {
    return this.roots.findIndex((root) => root.dir === change.rootDir);
  }

  private show(target: string): string {
    return this.redactor.path(target);
  }

  private conflictFound(name: string, message: string, where?: string): void {
    this.conflict = true;
    this.conflicted.add(name);
    this.ours.add(name);
    this.error('RUNTIME_CONFLICT', message, where);
  }

  private error(code: string, message: string, where?: string): void {
    this.findings.push({ code, severity: 'error', message, ...(where === undefined ? {} : { path: where }) });
  }

  private warning(code: string, message: string, where?: string): void {
    this.findings.push({ code, severity: 'warning', message, ...(where === undefined ? {} : { path: where }) });
  }

  private info(code: string, message: string, where?: string): void {
    this.findings.push({ code, severity: 'info', message, ...(where === undefined ? {} : { path: where }) });
  }
}
