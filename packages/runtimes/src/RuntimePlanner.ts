import path from 'node:path';
import { isLoadoutError, trackedFs } from '@loadout/files';
import { type Diagnostic, Places, type Session, SessionLoader, token } from '@loadout/kernel';
import { SecretStore, type ServerRecord, serverDefinitionOf } from '@loadout/servers';
import type { SkillRecord } from '@loadout/skills';
import { USAGE_HOOK_ID } from '@loadout/usage-hook';
import { inject, injectable, injectAll } from 'tsyringe';
import { DocumentManifest } from './documents/DocumentManifest.js';
import { type DocumentPlanPart, planDocuments } from './documents/planDocuments.js';
import { readUsageConsent, usageHookDocuments } from './documents/usageHookDocuments.js';
import { wantedDocuments } from './documents/wantedDocuments.js';
import { findRepositoryRoot } from './findRepositoryRoot.js';
import { LoadoutLauncher, startedThroughLoadout } from './mcp/LoadoutLauncher.js';
import { McpManifest } from './mcp/McpManifest.js';
import { type BridgeRequest, entryHashes, openMcpConfig, planServers, type ServerPlanPart } from './mcp/planServers.js';
import { readConfigText } from './mcp/readConfigText.js';
import { recordedFileOf } from './mcp/RuntimeMcpSupport.js';
import { literalSecretsOf } from './mcp/ServerSpec.js';
import { readSourceServer, type SourceServer } from './mcp/SourceServer.js';
import { BundleStampCache } from './BundleStampCache.js';
import { type ClaudePluginPart, LOADOUT_MARKETPLACE, planClaudePlugins } from './clients/claudePluginRegistration.js';
import { clientPluginSkills } from './clients/clientPlugins.js';
import { type PluginPlacement, placePlugins, readPluginFacts } from './pluginsInPlace.js';
import { type InstalledClient, InstalledClients } from './clients/InstalledClients.js';
import { PathRedactor } from './PathRedactor.js';
import { collectPhysicalRoots } from './PhysicalRoots.js';
import { planRuntimes } from './planRuntimes.js';
import {
  type ClientPluginSkill,
  type DiscoveryRoot,
  type RuntimeAdapter,
  RuntimeAdapters,
  type ServerHold,
  ServerHolds,
  type WriteTarget,
} from './RuntimeAdapter.js';
import { environmentFindings, RuntimeEnvironment } from './RuntimeEnvironment.js';
import { RuntimeManifestInvalidError, RuntimeUnknownError } from './RuntimeErrors.js';
import { RuntimePlan } from './RuntimePlan.js';
import { rootOutsideAnchor } from './rootOutsideAnchor.js';
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
   * would see): their skills, and the MCP servers of those that keep them. Reads the runtime
   * folders, configuration files and manifests; writes nothing.
   */
  plan(session: Session, runtimes?: readonly string[], options?: PlanOptions): Promise<RuntimePlan>;
  /** The adapters, in registration order. */
  adapters(): readonly RuntimeAdapter[];
  /** Diagnostic-safe paths for this session. */
  redactor(project: string | null): PathRedactor;
}
export const RuntimePlanner = token<RuntimePlanner>('runtimes.planner');

export interface PlanOptions {
  /** Whether Loadout registers itself (`loadout mcp`) in the runtimes; absent: its entries stay as they are. */
  readonly bridge?: BridgeRequest | null;
  /** Plan exactly the runtimes named, none when the list is empty (instead of every adapter). */
  readonly exactly?: boolean;
}

@injectable()
export class SkillRuntimePlanner implements RuntimePlanner {
  constructor(
    @inject(SessionLoader) private readonly loader: SessionLoader,
    @inject(Places) private readonly places: Places,
    @inject(RuntimeEnvironment) private readonly env: RuntimeEnvironment,
    @injectAll(RuntimeAdapters) private readonly registered: RuntimeAdapter[],
    @injectAll(ServerHolds, { isOptional: true }) private readonly holds: ServerHold[],
    @injectAll(LoadoutLauncher, { isOptional: true }) private readonly launchers: LoadoutLauncher[],
  ) {}

  adapters(): readonly RuntimeAdapter[] {
    return this.registered;
  }

  redactor(project: string | null): PathRedactor {
    const { env, places } = this;
    const repository = project === null ? null : findRepositoryRoot(project);
    const fromEnv = (folder: RuntimeEnvironment['claudeConfig'], label: string) =>
      folder.fromEnv && !folder.relative ? [{ dir: folder.dir, label }] : [];
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

  async plan(session: Session, runtimes: readonly string[] = [], options: PlanOptions = {}): Promise<RuntimePlan> {
    // Each client as installed: its version decides the built-in names and the same-name rule.
    const clients = new InstalledClients(this.places.dataDir, this.env.variables);
    const redactor = this.redactor(session.project);
    // The user's runtime folders serve every project, so what they hold follows the global view;
    // the project's folders follow the project's view.
    const global = session.project === null ? session : await this.loader.open({ project: null, keepDocuments: true });
    try {
      const pluginParts = new Map<string, ClaudePluginPart>();
      const resolved = (options.exactly === true && runtimes.length === 0 ? [] : this.select(runtimes)).map((adapter) => {
        const entry = clients.resolve(adapter);
        // The plugins the client installed itself: their skills are loaded already, never written twice.
        let clientPlugins = clientPluginSkills(adapter.name, session.project, this.env);
        if (adapter.name === 'claude-code' && adapter.verified) {
          // Loadout's plugins it reads in place count as its own plugins, as the plan now has them.
          const registered = `${path.join(this.places.dataDir, 'runtimes')}${path.sep}`;
          const own = clientPlugins.filter((skill) => !skill.dir.startsWith(registered));
          const part = this.placePlugins(adapter.name, global, own, redactor);
          pluginParts.set(adapter.name, part);
          clientPlugins = [...own, ...inPlaceSkills(part.placements, global)];
        }
        return clientPlugins.length === 0 ? entry : { ...entry, adapter: { ...entry.adapter, clientPlugins } };
      });
      clients.save();
      const selected = resolved.map((entry) => entry.adapter);
      const installed = new Map(resolved.map((entry) => [entry.adapter.name, entry.client]));
      const findings: Diagnostic[] = [...environmentFindings(this.env)];
      const stamps = BundleStampCache.read(this.places.dataDir);
      const sources = this.wantedSkills(session, global, findings, stamps);
      const loadoutSkillFolders = new Set([...session.roots, ...global.roots].map((root) => physicalPath(path.join(root.dir, 'skills'))));
      const outside = new Map<string, Diagnostic[]>();
      const { byRuntime, roots } = collectPhysicalRoots(
        selected.map((adapter) => ({
          adapter,
          judged: adapter.verified,
          roots: this.rootsInPlace(adapter, session.project, outside, redactor),
        })),
        loadoutSkillFolders,
        stamps,
      );
      const parts = planRuntimes({ runtimes: byRuntime, roots, sources, show: (absolute) => redactor.path(absolute) });
      // The one answer to "does this runtime read that plugin in place?", for servers and documents alike.
      const inPlaceAs = (runtime: string, plugin: string): string | null =>
        pluginParts.get(runtime)?.placements.find((candidate) => candidate.plugin === plugin && candidate.inPlace)?.listedAs ?? null;
      const loadedInPlace = (runtime: string, plugin: string): boolean => inPlaceAs(runtime, plugin) !== null;
      const readsInPlace = (runtime: string, plugin: string): string | null =>
        loadedInPlace(runtime, plugin) ? `${runtime} runs it itself from plugin ${plugin}, read in place` : null;
      const mcp = this.planMcp(session, global, selected, options.bridge ?? null, findings, redactor, readsInPlace);
      const documents = this.planDocuments(session, global, selected, findings, redactor, inPlaceAs);
      return new RuntimePlan(
        session.project,
        parts.map((part) => ({
          ...part,
          client: redactClient(installed.get(part.adapter.name) ?? null, redactor),
          findings: [...(outside.get(part.adapter.name) ?? []), ...part.findings].map((finding) => redactFinding(finding, redactor)),
          mcp: redactPart(mcp.get(part.adapter.name) ?? null, redactor),
          documents: redactPart(documents.get(part.adapter.name) ?? null, redactor),
          ...(pluginParts.has(part.adapter.name) ? { plugins: pluginParts.get(part.adapter.name) ?? null } : {}),
        })),
        findings.map((finding) => redactFinding(finding, redactor)),
        redactor,
        stamps,
      );
    } finally {
      if (global !== session) global.dispose();
    }
  }

  /**
   * A runtime's roots, with every root Loadout would write that a link takes out of the project
   * or the home folder turned into a root it only reads: the refusal is a finding of that runtime.
   */
  private rootsInPlace(
    adapter: RuntimeAdapter,
    project: string | null,
    outside: Map<string, Diagnostic[]>,
    redactor: PathRedactor,
  ): DiscoveryRoot[] {
    return adapter.discoveryRoots(project, this.env).map((root) => {
      if (root.writes === null || !adapter.verified) return root;
      const escape = rootOutsideAnchor(root, project, this.env.home);
      if (escape === null) return root;
      const findings = outside.get(adapter.name) ?? [];
      outside.set(adapter.name, findings);
      findings.push({
        code: 'RUNTIME_ROOT_OUTSIDE',
        severity: 'error',
        path: root.dir,
        message: `${adapter.name}: ${redactor.path(root.dir)} leads out of ${redactor.path(escape.anchor)} through a link (it is ${redactor.path(escape.physical)}); nothing is written there. Remove the link or make it point inside ${redactor.path(escape.anchor)}`,
      });
      return { ...root, writes: null };
    });
  }

  /** The MCP part of the plan, for the selected verified runtimes that keep MCP servers. */
  private planMcp(
    session: Session,
    global: Session,
    selected: readonly RuntimeAdapter[],
    bridge: BridgeRequest | null,
    findings: Diagnostic[],
    redactor: PathRedactor,
    readsInPlace: (runtime: string, plugin: string) => string | null,
  ): Map<string, ServerPlanPart> {
    // An adapter's MCP support has its own status: a runtime whose skills ranking is unconfirmed
    // may still keep servers in documented or verified files.
    const runtimes = selected.flatMap((adapter) =>
      adapter.mcp !== undefined && adapter.mcp.status !== 'unconfirmed' ? [{ adapter, support: adapter.mcp }] : [],
    );
    if (runtimes.length === 0) return new Map();
    const sources = this.wantedServers(session, global, findings);
    let manifest: McpManifest | null = null;
    let manifestProblem: string | null = null;
    try {
      manifest = McpManifest.read(this.places.dataDir);
    } catch (error) {
      if (!(error instanceof RuntimeManifestInvalidError)) throw error;
      manifestProblem = error.message;
    }
    if (manifest?.hasPending() === true) {
      // What an interrupted run left pending is settled against the files, in memory: the plan sees what apply will.
      for (const { adapter, support } of runtimes) {
        for (const target of support.files(session.project, this.env)) {
          try {
            manifest.settle(
              adapter.name,
              recordedFileOf(target),
              entryHashes(openMcpConfig(target, readConfigText(target.file, target.file), target.file)),
              () => undefined,
            );
          } catch {
            // An unreadable file is reported by the plan itself.
          }
        }
      }
    }
    return planServers({
      runtimes,
      project: session.project,
      env: this.env,
      sources,
      manifest,
      manifestProblem,
      bridge,
      show: (absolute) => redactor.path(absolute),
      readsInPlace,
    });
  }

  /**
   * The agents, commands and hooks part of the plan, per selected runtime: what each one's places
   * should hold, compared with them and with the manifest of what Loadout wrote before.
   */
  private planDocuments(
    session: Session,
    global: Session,
    selected: readonly RuntimeAdapter[],
    findings: Diagnostic[],
    redactor: PathRedactor,
    inPlaceAs: (runtime: string, plugin: string) => string | null,
  ): Map<string, DocumentPlanPart> {
    let manifest: DocumentManifest;
    try {
      manifest = DocumentManifest.read(this.places.dataDir);
    } catch (error) {
      if (!(error instanceof RuntimeManifestInvalidError)) throw error;
      findings.push({ code: 'RUNTIME_MANIFEST_INVALID', severity: 'error', message: error.message });
      return new Map();
    }
    const documents = wantedDocuments(session, global, findings);
    const usageConsent = readUsageConsent(this.places.dataDir, findings);
    return new Map(
      selected.map((adapter) => [
        adapter.name,
        planDocuments({
          runtime: adapter.name,
          support: adapter.documents ?? null,
          // The places of agents, commands and hooks are checked on their own (`documents.verifiedOn`).
          verified: adapter.documents !== undefined,
          project: session.project,
          env: this.env,
          documents: [
            ...documents,
            ...usageHookDocuments(
              adapter.name,
              adapter.documents ?? null,
              usageConsent,
              this.places.dataDir,
              manifest.entriesOf(adapter.name).some((entry) => entry.name === USAGE_HOOK_ID),
            ),
          ],
          manifest,
          show: (absolute) => redactor.path(absolute),
          inPlaceAs: (plugin) => inPlaceAs(adapter.name, plugin),
          ...(adapter.copiedAgentNames === undefined ? {} : { copiedAgentNames: adapter.copiedAgentNames }),
        }),
      ]),
    );
  }

  /**
   * How each enabled Loadout plugin reaches a runtime ({@link placePlugins}), and the settings
   * edits that register those it reads in place.
   */
  private placePlugins(runtime: string, global: Session, own: readonly ClientPluginSkill[], redactor: PathRedactor): ClaudePluginPart {
    // A plugin the client installed itself under the same name is loaded from there: registering Loadout's too would list it twice.
    const facts = readPluginFacts(global).map((plugin) => ({
      ...plugin,
      ownInRuntime: own.find((skill) => skill.plugin === plugin.plugin)?.pluginId ?? null,
    }));
    return planClaudePlugins(
      placePlugins(runtime, facts),
      this.env,
      this.places.dataDir,
      (absolute) => redactor.path(absolute),
      (why) => placePlugins(runtime, facts, why),
    );
  }

  /**
   * The servers each kind of file should hold, like skills: the project's files the project's own
   * servers (and global ones turned on for this project only); the user's files every server on in
   * the global view. Held servers (trust) come with their reason.
   */
  private wantedServers(session: Session, global: Session, findings: Diagnostic[]): SourceServer[] {
    const wants: SourceServer[] = [];
    const examples = this.shippedExamples();
    const hold = (record: ServerRecord, from: Session): string | null => {
      // A session already holds what its owner has not trusted (a project's server, an unapproved plugin's).
      if (record.held !== undefined) return record.held.reason;
      if (examples(record)) return SHIPPED_EXAMPLE_REASON;
      for (const rule of this.holds) {
        const reason = rule.holdReason(record, from);
        if (reason !== null) return reason;
      }
      return null;
    };
    const secretStore = new SecretStore(this.places.dataDir);
    const take = (record: ServerRecord, target: 'user' | 'project', from: Session): SourceServer | null => {
      const read = readSourceServer(record, target, from, hold(record, from));
      if (read === null) return null;
      const server = this.withSecrets(read, record, secretStore, findings);
      wants.push(server);
      if (server.name !== server.id) {
        findings.push({
          code: 'SERVER_NAME_MAPPED',
          severity: 'info',
          path: record.path,
          message: `server "${server.id}" is written as "${server.name}": runtimes accept only letters, digits, "_" and "-" in a server's name`,
        });
      }
      const secrets = literalSecretsOf(server.spec);
      if (secrets.length > 0) {
        findings.push({
          code: 'SERVER_SECRET_LITERAL',
          severity: 'warning',
          path: record.path,
          message: `server "${server.id}": ${secrets.join(', ')} ${secrets.length === 1 ? 'looks' : 'look'} like a credential written out; it is written as it is into the runtimes' configuration (write a \${VAR} reference instead)`,
        });
      }
      return server;
    };
    const globalRecords = global.recordsOf<ServerRecord>('server');
    const globalKeys = new Set(globalRecords.map(recordKey));
    const projectRecords = session.project === null ? [] : session.recordsOf<ServerRecord>('server');
    const projectIds = new Set(projectRecords.map((record) => record.id));
    for (const record of projectRecords) {
      if (record.level === 'project' || !globalKeys.has(recordKey(record))) take(record, 'project', session);
    }
    for (const record of globalRecords) {
      const server = take(record, 'user', global);
      // On globally, off for this project: each runtime is asked to leave it off in the project's
      // view (planServers), and one that cannot is named in a warning there.
      if (server !== null && server.held === null && session.project !== null && !projectIds.has(record.id)) {
        wants.push({ ...server, target: 'project', off: true });
      }
    }
    return wants;
  }

  /**
   * A server that names secrets, as runtimes are given it: started through `loadout mcp run`
   * (never with the values in its entry); held back when this process cannot say how to start
   * Loadout. A secret not in the store yet is a warning: the server fails to start until it is set.
   */
  private withSecrets(server: SourceServer, record: ServerRecord, store: SecretStore, findings: Diagnostic[]): SourceServer {
    const definition = serverDefinitionOf(record);
    const secrets = definition !== null && 'secrets' in definition ? (definition.secrets ?? {}) : {};
    if (Object.keys(secrets).length === 0) return server;
    const launcher = this.launchers[this.launchers.length - 1];
    if (launcher === undefined) {
      return server.held === null
        ? { ...server, held: 'it names secrets, which reach it only through `loadout mcp run`; apply it from the command line' }
        : server;
    }
    let kept: ReadonlySet<string>;
    try {
      kept = new Set(store.names());
    } catch (error) {
      if (!isLoadoutError(error)) throw error;
      kept = new Set();
      findings.push({ code: error.code, severity: 'warning', message: error.message });
    }
    const missing = [...new Set(Object.values(secrets))].filter((name) => !kept.has(name));
    if (missing.length > 0) {
      findings.push({
        code: 'SECRET_MISSING',
        severity: 'warning',
        path: record.path,
        message: `server "${record.id}" names ${missing.map((name) => `"${name}"`).join(', ')}, not kept yet: it does not start until \`loadout secrets set ${missing[0]}\` (the value read from stdin)`,
      });
    }
    return startedThroughLoadout(server, secrets, launcher);
  }

  /**
   * Whether a record is one of the examples Loadout ships: an owner capability of a capabilities
   * folder that still holds the examples' marker. Those are never written into a runtime, so a
   * first `apply` from a fresh checkout does not put the `filesystem` example into the owner's real
   * configuration. Removing the marker makes the folder the owner's.
   */
  private shippedExamples(): (record: SkillRecord | ServerRecord) => boolean {
    if (!trackedFs.existsSync(path.join(this.places.capabilitiesDir, SHIPPED_EXAMPLES_MARKER))) return () => false;
    return (record) => record.level === 'global' && record.plugin === null;
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
  private wantedSkills(session: Session, global: Session, findings: Diagnostic[], stamps: BundleStampCache): SourceSkill[] {
    const wants: SourceSkill[] = [];
    // A held skill (scripts or tool grants not yet trusted) is never written, as a held server is
    // not: it is left out of what is wanted, so a copy written before is retired like any other.
    const reported = new Set<string>();
    const examples = this.shippedExamples();
    let exampleSkills = 0;
    const free = (record: SkillRecord): boolean => {
      if (examples(record)) {
        exampleSkills += 1;
        return false;
      }
      if (record.held === undefined) return true;
      const key = recordKey(record);
      if (!reported.has(key)) {
        reported.add(key);
        findings.push({
          code: 'CAPABILITY_UNTRUSTED',
          severity: 'warning',
          path: record.path,
          message: `skill "${record.id}" is held (${record.held.decidedBy}): ${record.held.reason}; it is not written into any runtime`,
        });
      }
      return false;
    };
    const globalKeys = new Set(global.recordsOf<SkillRecord>('skill').map(recordKey));
    const projectRecords = session.project === null ? [] : session.recordsOf<SkillRecord>('skill');
    const projectIds = new Set(projectRecords.map((record) => record.id));
    for (const record of projectRecords) {
      if ((record.level === 'project' || !globalKeys.has(recordKey(record))) && free(record))
        wants.push(readSourceSkill(record, 'project' satisfies WriteTarget, session, stamps));
    }
    for (const record of global.recordsOf<SkillRecord>('skill')) {
      if (!free(record)) continue;
      wants.push(readSourceSkill(record, 'user', global, stamps));
      if (session.project !== null && !projectIds.has(record.id)) {
        findings.push({
          code: 'SKILL_OFF_IN_PROJECT_ONLY',
          severity: 'warning',
          message: `skill "${record.id}" is off for this project but on globally; a runtime's user folder serves every project, so it stays visible here`,
        });
      }
    }
    if (exampleSkills > 0) {
      findings.push({
        code: 'SHIPPED_EXAMPLES_NOT_WRITTEN',
        severity: 'warning',
        path: this.places.capabilitiesDir,
        message: `${exampleSkills} skill${exampleSkills === 1 ? ' is an example' : 's are examples'} ${SHIPPED_EXAMPLES}`,
      });
    }
    return wants;
  }
}

/** The file that marks a capabilities folder as Loadout's shipped examples. */
export const SHIPPED_EXAMPLES_MARKER = '.loadout-examples';
const SHIPPED_EXAMPLES = `shipped with Loadout (${SHIPPED_EXAMPLES_MARKER} in the capabilities folder), never written into a runtime; point LOADOUT_CAPABILITIES_DIR at your own, or delete that file to make them yours`;
const SHIPPED_EXAMPLE_REASON = `it is an example ${SHIPPED_EXAMPLES}`;

function recordKey(record: SkillRecord | ServerRecord): string {
  return `${record.id}\0${record.plugin ?? ''}\0${record.path}`;
}

function redactClient(client: InstalledClient | null, redactor: PathRedactor): InstalledClient | null {
  return client === null ? null : { ...client, binary: redactor.path(client.binary) };
}

function redactPart<Part extends ServerPlanPart | DocumentPlanPart>(part: Part | null, redactor: PathRedactor): Part | null {
  return part === null ? null : { ...part, findings: part.findings.map((finding) => redactFinding(finding, redactor)) };
}

function redactFinding(finding: Diagnostic, redactor: PathRedactor): Diagnostic {
  return {
    code: finding.code,
    severity: finding.severity,
    message: redactor.text(finding.message),
    ...(finding.path === undefined ? {} : { path: redactor.path(finding.path) }),
  };
}

/**
 * The skills of the plugins a runtime reads in place, as it lists them: each skill of the plugin
 * the session has, by its folder's name, under the plugin's manifest name.
 */
function inPlaceSkills(placements: readonly PluginPlacement[], global: Session): ClientPluginSkill[] {
  const inPlace = new Map(placements.filter((placement) => placement.inPlace).map((placement) => [placement.plugin, placement]));
  return global.recordsOf<SkillRecord>('skill').flatMap((record) => {
    const placement = record.plugin === null ? undefined : inPlace.get(record.plugin);
    if (placement === undefined) return [];
    const dir = path.dirname(record.path);
    return [
      {
        plugin: placement.plugin,
        pluginId: `${placement.plugin}@${LOADOUT_MARKETPLACE}`,
        skill: path.basename(dir),
        dir,
        listedAs: placement.listedAs,
        registeredByLoadout: true,
      },
    ];
  });
}
