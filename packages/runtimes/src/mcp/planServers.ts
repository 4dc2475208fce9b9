import { type Diagnostic } from '@loadout/kernel';
import { isLoadoutError } from '@loadout/files';
import type { RuntimeAdapter } from '../RuntimeAdapter.js';
import type { RuntimeEnvironment } from '../RuntimeEnvironment.js';
import type { ChangeReport } from '../RuntimePlan.js';
import { rootOutsideAnchor } from '../rootOutsideAnchor.js';
import { JsonMcpConfigDocument } from './JsonMcpConfigDocument.js';
import { JsonOffListDocument, OFF_MARK } from './JsonOffListDocument.js';
import type { McpConfigDocument } from './McpConfigDocument.js';
import type { McpManifest, McpManifestEntry } from './McpManifest.js';
import type { PlannedServerChange } from './PlannedServerChange.js';
import { type McpConfigFile, type McpSupportStatus, type RuntimeMcpSupport, recordedFileOf } from './RuntimeMcpSupport.js';
import { serverEntryHash } from './ServerSpec.js';
import type { SourceServer } from './SourceServer.js';
import { readConfigText } from './readConfigText.js';
import { TomlMcpConfigDocument } from './TomlMcpConfigDocument.js';
import { YamlMcpConfigDocument } from './YamlMcpConfigDocument.js';

/** A configuration file as the plan reports it. */
export interface McpFileReport {
  readonly path: string;
  readonly scope: McpConfigFile['scope'];
  readonly format: McpConfigFile['format'];
  readonly exists: boolean;
  readonly writes: boolean;
  readonly note: string;
}

/** One server entry a runtime finds in its files once the plan ran. */
export interface McpEntryReport {
  readonly name: string;
  /** The Loadout id behind a managed entry; null for the user's own. */
  readonly id: string | null;
  readonly path: string;
  readonly scope: McpConfigFile['scope'];
  /** `loadout`: a server Loadout wrote; `bridge`: Loadout itself; `user`: not Loadout's. */
  readonly owner: 'loadout' | 'bridge' | 'user';
}

/**
 * - `ok`: applied (or nothing to do)
 * - `conflict`: one of its files holds something Loadout must not overwrite, or cannot be read or
 *   edited; nothing is written into any of that runtime's MCP files
 */
export type McpStatus = 'ok' | 'conflict';

/** One runtime's MCP part of a plan. */
export interface ServerPlanPart {
  readonly status: McpStatus;
  /** How Loadout knows the runtime's MCP files (`RuntimeMcpSupport.status`). */
  readonly support: McpSupportStatus;
  readonly verifiedOn: string;
  /** The files planned, as the executor needs them. */
  readonly targets: readonly McpConfigFile[];
  readonly files: readonly McpFileReport[];
  readonly changes: readonly PlannedServerChange[];
  readonly skips: readonly ChangeReport[];
  readonly findings: readonly Diagnostic[];
  readonly sees: readonly McpEntryReport[];
}

/** Whether apply registers Loadout itself (`loadout mcp`) in the user's files, and how. */
export interface BridgeRequest {
  /** `on`/`off`: asked for on this run; `keep`: as the manifest says (on where it was written before). */
  readonly mode: 'on' | 'off' | 'keep';
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** The name the bridge takes in every runtime. */
export const BRIDGE_NAME = 'loadout';

export interface PlanServersInput {
  readonly runtimes: readonly { readonly adapter: RuntimeAdapter; readonly support: RuntimeMcpSupport }[];
  readonly project: string | null;
  readonly env: RuntimeEnvironment;
  readonly sources: readonly SourceServer[];
  /** Null when it cannot be read: nothing is written into any MCP file then. */
  readonly manifest: McpManifest | null;
  readonly manifestProblem: string | null;
  /** Null: the bridge entries stay as they are, whatever they are. */
  readonly bridge: BridgeRequest | null;
  readonly show: (absolute: string) => string;
  /**
   * Why a runtime runs a plugin's servers itself (it reads the plugin in place, see
   * `placePlugins`); null when it does not. Such a server is never written for it too.
   */
  readonly readsInPlace?: (runtime: string, plugin: string) => string | null;
}

/** A file read for planning. */
interface LoadedFile {
  readonly target: McpConfigFile;
  readonly exists: boolean;
  readonly document: McpConfigDocument | null;
  readonly problem: string | null;
  /** The finding's code for a file that cannot be used: `MCP_CONFIG_UNREADABLE` unless the refusal had its own. */
  readonly problemCode?: string;
}

/** Opens a configuration file's text (null: the file does not exist) in its format. */
export function openMcpConfig(target: McpConfigFile, text: string | null, label: string): McpConfigDocument {
  if (target.offList !== undefined) return new JsonOffListDocument(text, target.offList, label, target.trailingCommas === true);
  if (target.format === 'yaml') return new YamlMcpConfigDocument(text, target.container, label);
  return target.format === 'json'
    ? new JsonMcpConfigDocument(text, target.container, label, target.trailingCommas === true)
    : new TomlMcpConfigDocument(text, target.container, label);
}

/** Each entry's hash, by name. */
export function entryHashes(document: McpConfigDocument): Map<string, string> {
  return new Map([...document.servers()].map(([name, value]) => [name, serverEntryHash(value)]));
}

/**
 * Plans the MCP servers of every runtime that keeps them, per runtime and file. For each entry
 * Loadout wants in a file: written when absent; left when Loadout's own entry already holds it; an
 * identical entry of the user's is kept and reported; a different one (or Loadout's entry edited
 * since) is a conflict, and that runtime gets nothing written. A managed entry no longer wanted is
 * retired (its value kept in the trash), released when edited, forgotten when gone. Every change is
 * tried on a copy of the file's text, so a file the editor cannot change safely is a finding too.
 */
export function planServers(input: PlanServersInput): Map<string, ServerPlanPart> {
  const parts = new Map<string, ServerPlanPart>();
  for (const { adapter, support } of input.runtimes) parts.set(adapter.name, planRuntime(adapter.name, support, input));
  return parts;
}

function planRuntime(runtime: string, support: RuntimeMcpSupport, input: PlanServersInput): ServerPlanPart {
  const { show } = input;
  const findings: Diagnostic[] = [];
  // A project's file a link takes out of the project (`.mcp.json` → `~/.claude.json`) is neither read nor written.
  const files = support.files(input.project, input.env);
  const targets = files.filter((target) => {
    const escape =
      target.scope === 'project' ? rootOutsideAnchor({ dir: target.file, scope: 'project' }, input.project, input.env.home) : null;
    if (escape === null) return true;
    findings.push({
      code: 'RUNTIME_ROOT_OUTSIDE',
      severity: 'error',
      path: target.file,
      message: `${runtime}: ${show(target.file)} leads out of ${show(escape.anchor)} through a link (it is ${show(escape.physical)}); it is neither read nor written. Remove the link or make it point inside ${show(escape.anchor)}`,
    });
    return false;
  });
  const loaded = targets.map((target) => load(target, show));
  const skips: ChangeReport[] = [];
  const changes: PlannedServerChange[] = [];
  const sees: McpEntryReport[] = [];
  let conflict = false;
  const conflictFinding = (file: string, message: string, code = 'SERVER_CONFLICT'): void => {
    conflict = true;
    findings.push({
      code,
      severity: 'error',
      path: file,
      message: `${runtime}: ${message}. Nothing is written into ${runtime}'s MCP configuration`,
    });
  };
  findings.push(...offUnsupported(runtime, support, targets, input));
  noProjectScope(runtime, files, input, skips, findings);
  if (input.manifest === null) {
    conflictFinding(input.show(input.env.home), input.manifestProblem ?? 'the MCP manifest cannot be read', 'RUNTIME_MANIFEST_INVALID');
  }

  // One file can be two of a runtime's places (Claude Code's servers and its per-project off list
  // are both in ~/.claude.json): a file that cannot be read is said once.
  const unreadable = new Set<string>();
  for (const file of loaded) {
    const { target } = file;
    const shown = show(target.file);
    if (file.document === null) {
      if (!unreadable.has(target.file))
        conflictFinding(target.file, file.problem ?? `${shown} cannot be read`, file.problemCode ?? 'MCP_CONFIG_UNREADABLE');
      unreadable.add(target.file);
      continue;
    }
    const present = file.document.servers();
    const recorded = new Map((input.manifest?.entriesOf(runtime, recordedFileOf(target)) ?? []).map((entry) => [entry.name, entry]));
    const wanted = wantedIn(runtime, support, target, input, recorded, findings, skips);
    const fileChanges: PlannedServerChange[] = [];
    const base = (server: SourceServer) => ({
      kind: 'server' as const,
      runtime,
      target,
      name: server.name,
      id: server.id,
      source: server.source,
      bridge: server.bridge,
      sourcePath: server.sourcePath,
    });

    for (const [name, { server, value }] of wanted) {
      const hash = serverEntryHash(value);
      const existing = present.get(name);
      const record = recorded.get(name);
      if (!target.writes) continue;
      if (existing === undefined) {
        fileChanges.push({
          ...base(server),
          action: 'create',
          value,
          hash,
          expectedHash: null,
          current: null,
          reason: server.off === true ? OFF_REASON : record === undefined ? 'wanted, not present' : 'managed, but the entry is gone',
        });
        continue;
      }
      const onDisk = serverEntryHash(existing);
      if (onDisk === hash) {
        if (record === undefined) {
          findings.push({
            code: 'IDENTICAL_UNMANAGED_KEPT',
            severity: 'info',
            path: target.file,
            message: `${runtime}: server "${name}" in ${shown} is already exactly what Loadout would write; it is kept as yours and not managed`,
          });
        }
        continue;
      }
      if (record !== undefined && record.hash === onDisk) {
        fileChanges.push({
          ...base(server),
          action: 'update',
          value,
          hash,
          expectedHash: onDisk,
          current: existing,
          reason: server.bridge ? 'the loadout command changed' : 'the source changed',
        });
        continue;
      }
      const what =
        record === undefined
          ? "holds a different entry of that name that is not Loadout's"
          : "holds Loadout's entry of that name, edited since it was written";
      if (server.off === true) {
        // The project's own entry of that name is the user's word on this project: it stays, the server is not left off by Loadout.
        findings.push({
          code: 'SERVER_OFF_ENTRY_TAKEN',
          severity: 'warning',
          path: target.file,
          message: `${runtime}: server "${server.id}" is off for this project, but ${shown} ${what} "${name}"; it is left as it is, so ${runtime} may still start the server here`,
        });
        continue;
      }
      if (server.bridge) {
        findings.push({
          code: 'MCP_BRIDGE_NAME_TAKEN',
          severity: 'warning',
          path: target.file,
          message: `${runtime}: Loadout is not registered in ${shown}: it ${what} "${name}"; it is left as it is`,
        });
        continue;
      }
      conflictFinding(
        target.file,
        `server "${name}"${server.id === name ? '' : ` (Loadout id "${server.id}")`} is not written: ${shown} ${what}`,
      );
    }

    for (const record of recorded.values()) {
      if (!target.writes || wanted.has(record.name) || (record.bridge && input.bridge === null)) continue;
      const existing = present.get(record.name);
      const common = {
        kind: 'server' as const,
        runtime,
        target,
        name: record.name,
        id: record.source.id,
        value: null,
        source: record.source,
        bridge: record.bridge,
        sourcePath: null,
      };
      if (existing === undefined) {
        fileChanges.push({
          ...common,
          action: 'forget',
          hash: null,
          expectedHash: null,
          current: null,
          reason: 'no longer wanted; the entry is already gone',
        });
        continue;
      }
      const onDisk = serverEntryHash(existing);
      if (onDisk === record.hash) {
        const why = record.bridge
          ? 'Loadout is no longer to be registered (--no-mcp-bridge)'
          : 'no longer wanted (off, removed, moved to another level, or its plugin disabled)';
        fileChanges.push({ ...common, action: 'retire', hash: onDisk, expectedHash: onDisk, current: existing, reason: why });
        continue;
      }
      fileChanges.push({
        ...common,
        action: 'release',
        hash: onDisk,
        expectedHash: onDisk,
        current: null,
        reason: 'no longer wanted, but edited since Loadout wrote it: left in place, no longer managed',
      });
      findings.push({
        code: 'MANAGED_SERVER_EDITED',
        severity: 'warning',
        path: target.file,
        message: `${runtime}: server "${record.name}" in ${shown} was edited since Loadout wrote it; it is no longer wanted but is kept, and Loadout stops managing it`,
      });
    }

    const after = tryChanges(file, fileChanges, conflictFinding, shown);
    changes.push(...fileChanges);
    if (target.scope === 'project' && target.offList === undefined && input.project !== null) {
      const names = [...wanted.keys()].filter((name) => after?.servers().has(name) === true);
      if (names.length > 0)
        findings.push(
          ...(support.projectFindings?.(target.file, names, input.project, input.env) ?? []).map((finding) => ({
            ...finding,
            message: finding.message.split(target.file).join(shown),
          })),
        );
    }
    for (const name of target.offList === undefined ? (after ?? file.document).servers().keys() : []) {
      // A mark that leaves a global server off in this project is no server the runtime sees.
      if (wanted.get(name)?.server.off === true) continue;
      const change = fileChanges.find((candidate) => candidate.name === name);
      const managed =
        change !== undefined
          ? change.action === 'create' || change.action === 'update'
          : recorded.has(name) && !fileChanges.some((candidate) => candidate.name === name);
      const record = recorded.get(name);
      const bridge = change?.bridge ?? record?.bridge ?? false;
      sees.push({
        name,
        id: managed ? (change?.id ?? record?.source.id ?? null) : null,
        path: shown,
        scope: target.scope,
        owner: managed ? (bridge ? 'bridge' : 'loadout') : 'user',
      });
    }
  }
  return {
    status: conflict ? 'conflict' : 'ok',
    support: support.status,
    verifiedOn: support.verifiedOn,
    targets,
    files: loaded.map((file) => ({
      path: show(file.target.file),
      scope: file.target.scope,
      format: file.target.format,
      exists: file.exists,
      writes: file.target.writes,
      note: file.target.note,
    })),
    changes: conflict ? [] : changes,
    skips,
    findings,
    sees,
  };
}

/**
 * The entries Loadout wants in one file, by name: the servers of the file's level this runtime can
 * hold, and the bridge in a user file when it is asked for (or kept).
 */
function wantedIn(
  runtime: string,
  support: RuntimeMcpSupport,
  target: McpConfigFile,
  input: PlanServersInput,
  recorded: ReadonlyMap<string, McpManifestEntry>,
  findings: Diagnostic[],
  skips: ChangeReport[],
): Map<string, { server: SourceServer; value: Readonly<Record<string, unknown>> }> {
  const wanted = new Map<string, { server: SourceServer; value: Readonly<Record<string, unknown>> }>();
  const candidates = input.sources.filter((server) => {
    if (target.offList !== undefined) return server.off === true;
    if (server.off === true) return support.projectOff?.kind === 'entry' && target.scope === 'project';
    return server.target === target.scope;
  });
  const bridge = bridgeCandidate(target, input.bridge, recorded);
  for (const server of bridge === null ? candidates : [...candidates, bridge]) {
    const skip = (reason: string, code: string, severity: Diagnostic['severity']): void =>
      skipServer(runtime, server, input, reason, code, severity, skips, findings);
    const inPlace = server.source.plugin === null ? null : (input.readsInPlace?.(runtime, server.source.plugin) ?? null);
    if (server.off === true) {
      const mark = offMark(runtime, support, target, server, inPlace, findings);
      if (mark !== null) wanted.set(server.name, { server, value: mark });
      continue;
    }
    if (inPlace !== null) {
      skip(inPlace, 'SERVER_IN_PLACE', 'info');
      continue;
    }
    if (server.held !== null) {
      skip(server.held, 'CAPABILITY_UNTRUSTED', 'warning');
      continue;
    }
    const entry = support.entryFor(server.spec, server.name);
    if ('unsupported' in entry) {
      skip(entry.unsupported, 'SERVER_UNSUPPORTED', 'warning');
      continue;
    }
    const taken = wanted.get(server.name);
    if (taken !== undefined) {
      if (server.bridge) {
        findings.push({
          code: 'MCP_BRIDGE_NAME_TAKEN',
          severity: 'warning',
          message: `${runtime}: Loadout is not registered as "${server.name}": the server "${taken.server.id}" takes that name`,
        });
      } else {
        findings.push({
          code: 'SERVER_NAME_COLLISION',
          severity: 'error',
          message: `${runtime}: servers "${taken.server.id}" and "${server.id}" would both be written as "${server.name}"; neither is written`,
        });
        wanted.delete(server.name);
      }
      continue;
    }
    findings.push(...toolListsIgnored(runtime, support, server));
    for (const note of entry.notes)
      findings.push({
        code: 'SERVER_SETTING_IGNORED',
        severity: 'warning',
        path: server.sourcePath ?? undefined,
        message: `${runtime}: server "${server.id}": ${note}`,
      });
    wanted.set(server.name, { server, value: entry.value });
  }
  return wanted;
}

/** The lists of a server's tools a runtime's entry cannot hold, as info: it offers every tool of the server (or does not hide those). */
function toolListsIgnored(runtime: string, support: RuntimeMcpSupport, server: SourceServer): Diagnostic[] {
  const { tools } = server.spec;
  const missing = [
    ...(tools?.allow !== undefined && support.toolLists?.allow !== true ? ['allow'] : []),
    ...(tools?.deny !== undefined && support.toolLists?.deny !== true ? ['deny'] : []),
  ];
  if (missing.length === 0) return [];
  return [
    {
      code: 'SERVER_TOOLS_UNSUPPORTED',
      severity: 'info',
      path: server.sourcePath ?? undefined,
      message: `${runtime}: server "${server.id}": ${runtime} has no per-server ${missing.join(' or ')} list of tools, so its tools.${missing.join(' and tools.')} ${missing.length === 1 ? 'is' : 'are'} not written there; it offers the server's tools as the server lists them`,
    },
  ];
}

/** Why a change writes a mark that leaves a global server off in the project. */
const OFF_REASON = "off for this project: left off in the project's view";

/**
 * What leaves a global server off in one file for this project: the runtime's `projectOff` value
 * (or a name in its list), or null when there is nothing to leave off (the runtime cannot hold the
 * server at all) or no way to (a plugin's server the runtime reads in place: reported).
 */
function offMark(
  runtime: string,
  support: RuntimeMcpSupport,
  target: McpConfigFile,
  server: SourceServer,
  inPlace: string | null,
  findings: Diagnostic[],
): Readonly<Record<string, unknown>> | null {
  if ('unsupported' in support.entryFor(server.spec, server.name)) return null;
  if (inPlace !== null) {
    findings.push(
      offOnlyInProject(runtime, server, `${runtime} runs it from the plugin itself (${inPlace}), which no list of Loadout's reaches`),
    );
    return null;
  }
  if (target.offList !== undefined) return OFF_MARK;
  return support.projectOff?.kind === 'entry' ? support.projectOff.value : null;
}

/** The warning for a global server a runtime keeps on in a project that switched it off. */
function offOnlyInProject(runtime: string, server: SourceServer, why: string): Diagnostic {
  return {
    code: 'SERVER_OFF_IN_PROJECT_ONLY',
    severity: 'warning',
    path: server.sourcePath ?? undefined,
    message: `${runtime}: server "${server.id}" is off for this project but on globally, and stays on in ${runtime} here: ${why}`,
  };
}

/**
 * The warnings for a runtime that has no way for a project to leave off a server of its user
 * configuration (or no project file to say it in), one per global server switched off here that
 * the runtime is given.
 */
function offUnsupported(
  runtime: string,
  support: RuntimeMcpSupport,
  targets: readonly McpConfigFile[],
  input: PlanServersInput,
): Diagnostic[] {
  if (input.project === null || !targets.some((target) => target.scope === 'user' && target.offList === undefined && target.writes))
    return [];
  const offBy = support.projectOff;
  const expressed = targets.some(
    (target) =>
      target.writes &&
      (offBy?.kind === 'list'
        ? target.offList !== undefined
        : offBy?.kind === 'entry' && target.scope === 'project' && target.offList === undefined),
  );
  if (expressed) return [];
  return input.sources
    .filter((server) => server.off === true && !('unsupported' in support.entryFor(server.spec, server.name)))
    .map((server) =>
      offOnlyInProject(
        runtime,
        server,
        `${runtime}'s user configuration serves every project, and ${runtime} has no setting that leaves one of its servers off in a project`,
      ),
    );
}

/**
 * A project's own servers (and global ones turned on for this project only) for a runtime that has
 * no project configuration: its user file would serve them to every project, so they are not
 * written for it, and each is said, never dropped in silence.
 */
function noProjectScope(
  runtime: string,
  files: readonly McpConfigFile[],
  input: PlanServersInput,
  skips: ChangeReport[],
  findings: Diagnostic[],
): void {
  if (input.project === null || files.some((target) => target.scope === 'project' && target.offList === undefined)) return;
  if (!files.some((target) => target.scope === 'user' && target.writes)) return;
  for (const server of input.sources) {
    if (server.target !== 'project' || server.off === true) continue;
    const reason = `${runtime} has no project configuration; its user configuration would serve this project's server to every project`;
    skipServer(runtime, server, input, reason, 'SERVER_NO_PROJECT_SCOPE', 'warning', skips, findings);
  }
}

/** A server the runtime does not get: a skip in its changes and a finding, both with the reason. */
function skipServer(
  runtime: string,
  server: SourceServer,
  input: PlanServersInput,
  reason: string,
  code: string,
  severity: Diagnostic['severity'],
  skips: ChangeReport[],
  findings: Diagnostic[],
): void {
  skips.push({
    kind: 'server',
    action: 'skip',
    name: server.name,
    id: server.id,
    path: null,
    hash: null,
    source: server.sourcePath === null ? null : input.show(server.sourcePath),
    reason,
  });
  findings.push({
    code,
    severity,
    path: server.sourcePath ?? undefined,
    message: `${runtime}: server "${server.id}" is skipped: ${reason}`,
  });
}

function bridgeCandidate(
  target: McpConfigFile,
  request: BridgeRequest | null,
  recorded: ReadonlyMap<string, McpManifestEntry>,
): SourceServer | null {
  if (request === null || target.scope !== 'user') return null;
  const on = request.mode === 'on' || (request.mode === 'keep' && recorded.get(BRIDGE_NAME)?.bridge === true);
  if (!on) return null;
  return {
    target: 'user',
    id: BRIDGE_NAME,
    name: BRIDGE_NAME,
    spec: { transport: 'stdio', command: request.command, args: request.args, env: request.env },
    source: { id: BRIDGE_NAME, level: 'global', plugin: null },
    sourcePath: null,
    bridge: true,
    held: null,
  };
}

function load(target: McpConfigFile, show: (absolute: string) => string): LoadedFile {
  let text: string | null;
  try {
    text = readConfigText(target.file, show(target.file));
  } catch (error) {
    if (isLoadoutError(error))
      return {
        target,
        exists: true,
        document: null,
        problem: error.message,
        problemCode: error.code === 'MCP_CONFIG_NOT_UTF8' ? error.code : undefined,
      };
    return {
      target,
      exists: true,
      document: null,
      problem: `${show(target.file)} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    };
  }
  try {
    return { target, exists: text !== null, document: openMcpConfig(target, text, show(target.file)), problem: null };
  } catch (error) {
    if (!isLoadoutError(error)) throw error;
    return { target, exists: text !== null, document: null, problem: error.message };
  }
}

/** Runs the file's changes on a copy of its text: the document as it will be, or null when the editor refused (a finding). */
function tryChanges(
  file: LoadedFile,
  changes: readonly PlannedServerChange[],
  refuse: (file: string, message: string, code?: string) => void,
  label: string,
): McpConfigDocument | null {
  if (file.document === null) return null;
  const copy = openMcpConfig(file.target, file.exists ? file.document.text() : null, label);
  try {
    applyServerChanges(copy, changes);
    return copy;
  } catch (error) {
    if (!isLoadoutError(error)) throw error;
    refuse(file.target.file, error.message, error.code);
    return null;
  }
}

/** Applies a file's changes to its document as one checked batch, removals first so they free their names. */
export function applyServerChanges(document: McpConfigDocument, changes: readonly PlannedServerChange[]): void {
  document.applyEdits([
    ...changes.filter((change) => change.action === 'retire').map((change) => ({ name: change.name, value: undefined })),
    ...changes.flatMap((change) =>
      (change.action === 'create' || change.action === 'update') && change.value !== null
        ? [{ name: change.name, value: change.value }]
        : [],
    ),
  ]);
}
