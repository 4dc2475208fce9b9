import { createHash } from 'node:crypto';
import type { AgentRecord } from '@loadout/agents';
import type { CommandRecord } from '@loadout/commands';
import type { CapabilityRecord, Session } from '@loadout/kernel';
import type { ServerRecord } from '@loadout/servers';
import type { SkillRecord } from '@loadout/skills';
import { FREE_FORM_INPUT, type InputCheck, type TaskInputSchemas, type TaskRecord } from '@loadout/tasks';
import { skillManifestUri, skillPathOf } from './skillPaths.js';
import { assignToolNames } from './toolName.js';

/** A task that is on, as an MCP tool. */
export interface ExposedTool {
  readonly name: string;
  readonly task: TaskRecord;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** Checks arguments against the declared schema; null when the task declares none. */
  readonly check: InputCheck | null;
}

/** A resource as `resources/list` describes it. */
export interface ResourceDescription {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType: string;
}

/** One entry of the resource list; a folder skill's other files are listed after it, read at listing time. */
export type ResourceEntry =
  | { readonly kind: 'block'; readonly section: string; readonly description: ResourceDescription }
  | { readonly kind: 'server'; readonly record: ServerRecord; readonly description: ResourceDescription }
  | { readonly kind: 'agent'; readonly record: AgentRecord; readonly description: ResourceDescription }
  | { readonly kind: 'skill'; readonly record: SkillRecord; readonly description: ResourceDescription };

/** A skill or a command that is on, as an MCP prompt. */
export type ExposedPrompt =
  | { readonly name: string; readonly kind: 'skill'; readonly record: SkillRecord }
  /** A command takes what is passed to it as one argument, `arguments` (its `$ARGUMENTS`). */
  | { readonly name: string; readonly kind: 'command'; readonly record: CommandRecord };

/** What one session shows an MCP client, derived once per change of the workspace. */
export interface SessionExposure {
  readonly session: Session;
  readonly tools: readonly ExposedTool[];
  readonly toolsByName: ReadonlyMap<string, ExposedTool>;
  /** Tasks that are on but held by trust, by tool name: not listed; a call is refused with `CAPABILITY_UNTRUSTED`. */
  readonly heldTools: ReadonlyMap<string, TaskRecord>;
  /** Tasks that are on but whose declared input schema cannot be used, by tool name, with why. */
  readonly unusableTools: ReadonlyMap<string, { readonly task: TaskRecord; readonly reason: string }>;
  readonly resources: readonly ResourceEntry[];
  readonly prompts: readonly ExposedPrompt[];
  readonly promptsByName: ReadonlyMap<string, ExposedPrompt>;
  /** Digests of each list as a client sees it: a list changed when its digest did. */
  readonly fingerprints: { readonly tools: string; readonly resources: string; readonly prompts: string };
  /** What the resource and prompt lists were derived from, and their digests if already made: for the next exposure. */
  readonly basis: ExposureBasis;
}

/** The records the resource and prompt lists come from, with the digests made of them so far. */
export interface ExposureBasis {
  readonly skills: readonly CapabilityRecord[];
  readonly servers: readonly CapabilityRecord[];
  readonly agents: readonly CapabilityRecord[];
  readonly commands: readonly CapabilityRecord[];
  readonly blocks: string;
  readonly digests: () => { readonly resources?: string; readonly prompts?: string };
}

/** The session's blocks as resources: section key → URI and name. */
export const BLOCK_RESOURCES: readonly { readonly section: string; readonly uri: string; readonly name: string; readonly title: string }[] =
  [
    { section: 'skillsBlock', uri: 'loadout://session/skills-block', name: 'skills-block', title: 'Skills block' },
    { section: 'affordanceBlock', uri: 'loadout://session/affordance-block', name: 'affordance-block', title: 'Affordance block' },
  ];

export const SKILL_URI_PREFIX = 'skill://';
export const SERVER_URI_PREFIX = 'loadout://servers/';
export const AGENT_URI_PREFIX = 'loadout://agents/';
export const PROMPT_PREFIX = 'skill:';
export const COMMAND_PROMPT_PREFIX = 'command:';

/** The URI of a skill (`skill://<id>`), or of one of its files (`skill://<id>/<path>`, each segment encoded). */
export function skillUri(id: string, relative?: string): string {
  return relative === undefined
    ? `${SKILL_URI_PREFIX}${id}`
    : `${SKILL_URI_PREFIX}${id}/${relative.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * Derives what an MCP client gets from a session: a tool per task that is on (named by
 * {@link assignToolNames}, typed by its declared input schema), a resource per block, server,
 * agent and skill, and a prompt per skill and per command. Pure: reads nothing but what the session holds. The tools are
 * derived at once (a call needs them); the resource and prompt lists and the digests only when
 * first asked for, so a call in a big workspace does not pay for listing ten thousand skills.
 *
 * @param previous the basis of the exposure this one replaces: when the session still holds the
 *   very same skill and server records (a change elsewhere, e.g. a job row, moved the workspace
 *   stamp), its digests are taken over instead of made again
 */
export function exposeSession(session: Session, schemas: TaskInputSchemas, previous?: ExposureBasis): SessionExposure {
  const tasks = session.recordsOf<TaskRecord>('task');
  const names = assignToolNames(tasks);
  const tools: ExposedTool[] = [];
  const unusableTools = new Map<string, { task: TaskRecord; reason: string }>();
  const heldTools = new Map<string, TaskRecord>();
  for (const task of tasks) {
    const name = names.get(task.dirName) as string;
    if (task.held !== undefined) {
      heldTools.set(name, task);
      continue;
    }
    if (task.inputSchemaError !== null) {
      unusableTools.set(name, { task, reason: task.inputSchemaError });
      continue;
    }
    if (task.inputSchema === null) {
      tools.push({ name, task, inputSchema: FREE_FORM_INPUT, check: null });
      continue;
    }
    const check = schemas.prepare(task.inputSchema);
    if ('error' in check) unusableTools.set(name, { task, reason: check.error });
    else tools.push({ name, task, inputSchema: task.inputSchema, check });
  }
  tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  const skills = session.recordsOf<SkillRecord>('skill');
  const servers = session.recordsOf<ServerRecord>('server');
  const agents = session.recordsOf<AgentRecord>('agent');
  const commands = session.recordsOf<CommandRecord>('command');
  const blocks = BLOCK_RESOURCES.filter((block) => session.sections.has(block.section))
    .map((block) => block.section)
    .join(',');
  const unchanged =
    previous !== undefined &&
    previous.blocks === blocks &&
    sameItems(previous.skills, skills) &&
    sameItems(previous.servers, servers) &&
    sameItems(previous.agents, agents) &&
    sameItems(previous.commands, commands);
  const inherited = unchanged ? previous.digests() : {};

  const resources = once(() => listResources(session));
  const prompts = once((): ExposedPrompt[] => [
    ...commands.map((record) => ({ name: `${COMMAND_PROMPT_PREFIX}${record.id}`, kind: 'command' as const, record })),
    ...skills.map((record) => ({ name: `${PROMPT_PREFIX}${record.id}`, kind: 'skill' as const, record })),
  ]);
  const promptsByName = once(() => new Map(prompts().map((prompt) => [prompt.name, prompt])));
  const toolsDigest = once(() => digest(tools.map((tool) => [tool.name, tool.task.name, tool.task.description, tool.inputSchema])));
  const resourcesDigest = once(
    () =>
      inherited.resources ??
      digest(resources().map((entry) => [entry.description, entry.kind === 'skill' || entry.kind === 'agent' ? entry.record.path : null])),
  );
  const promptsDigest = once(
    () =>
      inherited.prompts ??
      digest(
        prompts().map((prompt) => [
          prompt.name,
          prompt.record.name,
          prompt.record.description,
          prompt.kind === 'command' ? prompt.record.argumentHint : null,
        ]),
      ),
  );
  return {
    basis: {
      skills,
      servers,
      agents,
      commands,
      blocks,
      digests: () => ({
        ...(resourcesDigest.made() ? { resources: resourcesDigest() } : {}),
        ...(promptsDigest.made() ? { prompts: promptsDigest() } : {}),
      }),
    },
    session,
    tools,
    toolsByName: new Map(tools.map((tool) => [tool.name, tool])),
    heldTools,
    unusableTools,
    get resources() {
      return resources();
    },
    get prompts() {
      return prompts();
    },
    get promptsByName() {
      return promptsByName();
    },
    fingerprints: {
      get tools() {
        return toolsDigest();
      },
      get resources() {
        return resourcesDigest();
      },
      get prompts() {
        return promptsDigest();
      },
    },
  };
}

function listResources(session: Session): ResourceEntry[] {
  const resources: ResourceEntry[] = [];
  for (const block of BLOCK_RESOURCES) {
    if (!session.sections.has(block.section)) continue;
    resources.push({
      kind: 'block',
      section: block.section,
      description: {
        uri: block.uri,
        name: block.name,
        title: block.title,
        description: `The session's ${block.title.toLowerCase()}, as an agent's context gets it`,
        mimeType: 'text/markdown',
      },
    });
  }
  for (const record of session.recordsOf<ServerRecord>('server')) {
    resources.push({
      kind: 'server',
      record,
      description: {
        uri: `${SERVER_URI_PREFIX}${record.id}`,
        name: `server:${record.id}`,
        title: record.name,
        ...described(record.description),
        mimeType: 'application/json',
      },
    });
  }
  for (const record of session.recordsOf<AgentRecord>('agent')) {
    resources.push({
      kind: 'agent',
      record,
      description: {
        uri: `${AGENT_URI_PREFIX}${record.id}`,
        name: `agent:${record.id}`,
        title: record.name,
        ...described(record.description),
        mimeType: 'text/markdown',
      },
    });
  }
  for (const record of session.recordsOf<SkillRecord>('skill')) {
    // A skill the Skills extension serves is listed by its manifest's URI, named as the extension
    // asks; Loadout's own `skill://<id>` stays readable (see the MCP decisions).
    const served = skillPathOf(record);
    resources.push({
      kind: 'skill',
      record,
      description: {
        uri: served === null ? skillUri(record.id) : skillManifestUri(served),
        name: served === null ? record.id : record.name,
        title: record.name,
        ...described(record.description),
        mimeType: 'text/markdown',
      },
    });
  }
  return resources;
}

/** `make()`'s value, made on the first call and kept; `made()` says whether it was. */
function once<T>(make: () => T): (() => T) & { made: () => boolean } {
  let made: { value: T } | null = null;
  return Object.assign(() => (made ??= { value: make() }).value, { made: () => made !== null });
}

/** Whether two lists hold the very same objects in the same order. */
function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

function described(description: string): { description?: string } {
  return description === '' ? {} : { description };
}

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('base64url');
}
