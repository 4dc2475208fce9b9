import path from 'node:path';
import { type Diagnostic, Places, type Session, SessionLoader, token } from '@loadout/kernel';
import type { SkillRecord } from '@loadout/skills';
import { inject, injectable, injectAll } from 'tsyringe';
import { findRepositoryRoot } from './findRepositoryRoot.js';
import { PathRedactor } from './PathRedactor.js';
import { collectPhysicalRoots } from './PhysicalRoots.js';
import { planRuntimes } from './planRuntimes.js';
import { type RuntimeAdapter, RuntimeAdapters, type WriteTarget } from './RuntimeAdapter.js';
import { environmentFindings, RuntimeEnvironment } from './RuntimeEnvironment.js';
import { RuntimeUnknownError } from './RuntimeErrors.js';
import { RuntimePlan } from './RuntimePlan.js';
import { physicalPath, readSourceSkill, type SourceSkill } from './SourceSkill.js';

/**
 * Plans writing a session's skills into agent runtimes, per physical root: one write serves every
 * runtime that reads the folder. For every name one runtime would see, across all of its roots
 * (its built-in and managed skills included): one managed candidate is written; byte-identical
 * copies converge on one place and redundant writes are skipped; an identical unmanaged copy is
 * kept and reported; a different bundle under the same name is a conflict, and that runtime gets
 * nothing written while the others are applied; a managed entry no longer wanted is retired.
 *
 * @example
 * const plan = await planner.plan(session, ['claude-code']);
 * if (!plan.ok) console.log(plan.report().runtimes[0].findings);
 */
export interface RuntimePlanner {
  /**
   * Plans for the named runtimes (every adapter when empty; unverified ones only report what they
   * would see). Reads the runtime folders and manifests; writes nothing.
   */
  plan(session: Session, runtimes?: readonly string[]): Promise<RuntimePlan>;
  /** The adapters, in registration order. */
  adapters(): readonly RuntimeAdapter[];
  /** Diagnostic-safe paths for this session. */
  redactor(project: string | null): PathRedactor;
}
export const RuntimePlanner = token<RuntimePlanner>('runtimes.planner');

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
    const fromEnv = (folder: RuntimeEnvironment['claudeConfig'], label: string) => (folder.fromEnv && !folder.relative ? [{ dir: folder.dir, label }] : []);
    return new PathRedactor([
      { dir: env.home, label: '~' },
      ...fromEnv(env.claudeConfig, '$CLAUDE_CONFIG_DIR'),
      ...fromEnv(env.codexHome, '$CODEX_HOME'),
      { dir: env.claudeManagedDir, label: '<claude-managed>' },
      { dir: env.codexSystemDir, label: '<codex-admin>' },
      { dir: places.capabilitiesDir, label: '<capabilities>' },
      { dir: places.pluginsDir, label: '<plugins>' },
      { dir: places.dataDir, label: '<data>' },
      // The project before its repository: when they are one folder, it is shown as the project.
      ...(project === null ? [] : [{ dir: project, label: '<project>' }]),
      ...(repository === null ? [] : [{ dir: repository, label: '<repo>' }]),
    ]);
  }

  async plan(session: Session, runtimes: readonly string[] = []): Promise<RuntimePlan> {
    const selected = this.select(runtimes);
    const redactor = this.redactor(session.project);
    // The user's runtime folders serve every project, so what they hold follows the global view;
    // the project's folders follow the project's view.
    const global = session.project === null ? session : await this.loader.open({ project: null });
    try {
      const findings: Diagnostic[] = [...environmentFindings(this.env)];
      const sources = this.wantedSkills(session, global, findings);
      const loadoutSkillFolders = new Set([...session.roots, ...global.roots].map((root) => physicalPath(path.join(root.dir, 'skills'))));
      const { byRuntime, roots } = collectPhysicalRoots(
        selected.map((adapter) => ({ adapter, judged: adapter.verified, roots: adapter.discoveryRoots(session.project, this.env) })),
        loadoutSkillFolders,
      );
      const targets = new Set(byRuntime.filter((runtime) => runtime.judged).flatMap((runtime) => runtime.roots.map((root) => root.writes)));
      for (const source of sources) {
        if (source.unreadable === null || !targets.has(source.target)) continue;
        findings.push({
          code: 'SKILL_UNREADABLE',
          severity: 'error',
          path: source.sourceEntry,
          message: `skill "${source.record.id}" at ${redactor.path(source.sourceEntry)} cannot be read as a bundle (${source.unreadable}); what runtimes hold of it is left as it is`,
        });
      }
      const parts = planRuntimes({ runtimes: byRuntime, roots, sources, show: (absolute) => redactor.path(absolute) });
      return new RuntimePlan(
        session.project,
        parts.map((part) => ({ ...part, findings: part.findings.map((finding) => redactFinding(finding, redactor)) })),
        findings.map((finding) => redactFinding(finding, redactor)),
        redactor,
      );
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
  private wantedSkills(session: Session, global: Session, findings: Diagnostic[]): SourceSkill[] {
    const wants: SourceSkill[] = [];
    const globalKeys = new Set(global.recordsOf<SkillRecord>('skill').map(recordKey));
    const projectRecords = session.project === null ? [] : session.recordsOf<SkillRecord>('skill');
    const projectIds = new Set(projectRecords.map((record) => record.id));
    for (const record of projectRecords) {
      if (record.level === 'project' || !globalKeys.has(recordKey(record))) wants.push(readSourceSkill(record, 'project' satisfies WriteTarget, session));
    }
    for (const record of global.recordsOf<SkillRecord>('skill')) {
      wants.push(readSourceSkill(record, 'user', global));
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
}

function recordKey(record: SkillRecord): string {
  return `${record.id}\0${record.plugin ?? ''}\0${record.path}`;
}

function redactFinding(finding: Diagnostic, redactor: PathRedactor): Diagnostic {
  return {
    code: finding.code,
    severity: finding.severity,
    message: redactor.text(finding.message),
    ...(finding.path === undefined ? {} : { path: redactor.path(finding.path) }),
  };
}
