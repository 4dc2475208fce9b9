import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { type CommandRecord, commandPrompt } from '@loadout/commands';
import type { Job } from '@loadout/jobs';
import {
  type AnswerBudget,
  answerBytes,
  readMarkdownInside,
  readTextInside,
  refuseHeld,
  responseTooLarge,
  SessionLoader,
} from '@loadout/kernel';
import { readRedactedServerDocument, type ServerRecord } from '@loadout/servers';
import type { SkillRecord } from '@loadout/skills';
import type { UsageKind } from '@loadout/usage';
import { TaskInputSchemas } from '@loadout/tasks';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { LiveExposures } from './LiveExposures.js';
import { MCP_METHODS, type McpMethod } from './mcpMethods.js';
import type { McpServices } from './mcpServices.js';
import {
  INVALID_PARAMS,
  JsonRpcError,
  jsonRpcErrorFor,
  PromptNotFoundError,
  ResourceNotFoundError,
  ToolInputSchemaError,
  ToolGoneError,
  ToolNotFoundError,
  ToolSwitchedOffError,
} from './McpErrors.js';
import { paginate } from './paging.js';
import { parseResourceUri } from './resourceUris.js';
import { bindLegacyServer } from './legacySdkServer.js';
import type { McpCall, McpHandler } from './mcpCall.js';
import { getSkill, listSkills, resolveSkillFile, SKILLS_EXTENSION_ID } from './skillsExtension.js';
import { skillFileUri, skillPathOf } from './skillPaths.js';
import {
  declaresTasks,
  McpTasks,
  runsAsTask,
  TASKS_EXTENSION_ID,
  TasksExtensionRequiredError,
  type TaskOutcome,
} from './tasksExtension.js';
import { MAX_RESULT_CHARS, TaskOutputInvalidError, taskToolResult, type ToolResult } from './toolOutput.js';
import { rootOf, sessionRootOf } from './sessionRoots.js';
import { type ExposedTool, type ResourceDescription, type SessionExposure, skillUri } from './SessionExposure.js';
import { listSkillFiles, mimeTypeOf, readSkillFile } from './skillFiles.js';
import { assignToolNames } from './toolName.js';

export type { McpCall, McpHandler } from './mcpCall.js';

/** How many tools or prompts one page of a list holds; clients follow `nextCursor` for the rest. */
export const PAGE_SIZE = 1000;
/**
 * How many entries one page of `resources/list` holds: fewer, because each skill's folder is
 * listed for its other files when the page is asked for (see the MCP decisions).
 */
export const RESOURCE_PAGE_SIZE = 250;
export { MAX_RESULT_CHARS };
/** Progress notifications for one call are sent at most this often. */
const PROGRESS_INTERVAL_MS = 100;
export const CANCELLED_BY_CLIENT = 'cancelled by the MCP client';

/** Where a connection's project comes from: fixed (stdio), or the client's roots (HTTP). */
export interface ProjectSource {
  /** The project (a real path, or null for the global level only) for a request being handled. */
  projectFor(call: McpCall): Promise<string | null>;
  /** The project last answered; undefined before the first request. */
  readonly known: string | null | undefined;
  /** The client said its roots changed. */
  rootsChanged(): void;
}

/** A project fixed for the whole connection (`loadout mcp --project DIR`). */
export function fixedProject(project: string | null): ProjectSource {
  return { projectFor: async () => project, known: project, rootsChanged: () => undefined };
}

/**
 * The project an HTTP client works in: the first `file://` root the client offers (asked once,
 * again after it says its roots changed), else `fallback` (the `?project=` of the URL it connected
 * with), else none. A root that is not an existing folder falls back too, and is logged.
 */
export function projectFromRoots(fallback: string | null, log: (line: string) => void): ProjectSource {
  let answer: Promise<string | null> | null = null;
  let known: string | null | undefined;
  const ask = async (call: McpCall): Promise<string | null> => {
    if (call.listRoots === null || (call.clientCapabilities as { roots?: unknown } | undefined)?.roots === undefined) return fallback;
    try {
      const roots = await call.listRoots();
      const root = roots.find((candidate) => candidate.uri.startsWith('file://'));
      if (root === undefined) return fallback;
      return SessionLoader.resolveProject(fileURLToPath(root.uri));
    } catch (error) {
      log(`mcp: the client's roots give no project (${(error as Error).message}); using ${fallback ?? 'the global level only'}`);
      return fallback;
    }
  };
  return {
    projectFor: (call) => {
      answer ??= ask(call).then((project) => (known = project));
      return answer;
    },
    get known() {
      return known;
    },
    rootsChanged: () => {
      answer = null;
    },
  };
}

export type ListKind = 'tools' | 'resources' | 'prompts';

/** The capabilities a connection declares whatever the protocol revision. */
const BASE_CAPABILITIES = { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true } };

/**
 * One MCP client's record: Loadout's handlers for every method, whose tools, resources and
 * prompts are computed from the session as it is at each request (through {@link LiveExposures}),
 * what the client was shown, its running calls and tasks, and the list changes it must be told.
 * SDK-neutral: the handlers take an {@link McpCall}; `legacySdkServer.ts` puts them on SDK 1.x's
 * server (`server`, the 2025 sessionful HTTP serving) and `modernSdkServer.ts` on the v2 SDK's
 * (stdio of every revision, and 2026-07-28 over HTTP). One record outlives the server instances
 * the v2 SDK makes per request or per connection.
 */
export class McpConnection {
  /** Loadout's answer to each method, by method name. */
  readonly handlers: ReadonlyMap<string, McpHandler>;
  /** What the server declares: list changes, and each extension and extra method's own entry. */
  readonly capabilities: Record<string, unknown>;
  private legacyServer: Server | null = null;
  private readonly listChangeSinks = new Set<(list: ListKind) => Promise<void>>();
  private readonly served: Record<ListKind, string | null> = { tools: null, resources: null, prompts: null };
  /**
   * The tools this client was shown by its last `tools/list` (name → task folder): a call to one
   * that went away since is refused naming what changed, for clients that ignore `list_changed`.
   */
  private readonly shownTools = new Map<string, string>();
  private readonly calls = new Map<RequestId, AbortController>();
  /** The answer budget each request shares with the others of its HTTP POST (none over stdio). */
  private readonly budgets = new Map<RequestId, AnswerBudget>();
  /** Calls still running, so closing can wait until their jobs are settled. */
  private readonly running = new Set<Promise<unknown>>();
  private readonly unwatch: () => void;
  /** The MCP tasks this connection's client started (Tasks extension); they end with it. */
  private readonly tasks = new McpTasks();
  /** Output schemas, each prepared once for this connection's life. */
  private readonly outputSchemas = new TaskInputSchemas();
  private checking: Promise<void> | null = null;
  private checkAgain = false;
  private closed = false;
  /** Names this connection in the usage ledger: one client's session, for "used in most sessions". */
  private readonly ledgerSession = randomUUID();
  /**
   * The client's own name, taken from the requests it sends (one client per connection over stdio
   * and per 2025 HTTP session; over stateless 2026-07-28 HTTP, the last client of this project).
   */
  private clientName: string | undefined;

  constructor(
    private readonly services: Pick<McpServices, 'jobs' | 'state' | 'usage'>,
    private readonly exposures: LiveExposures,
    private readonly projects: ProjectSource,
    private readonly log: (line: string) => void,
    readonly version: string,
    private readonly methods: readonly McpMethod[] = MCP_METHODS,
  ) {
    this.capabilities = mergeCapabilities(BASE_CAPABILITIES, [
      { extensions: { [SKILLS_EXTENSION_ID]: {}, [TASKS_EXTENSION_ID]: {} } },
      ...methods.map((method) => method.capabilities ?? {}),
    ]);
    this.handlers = this.makeHandlers();
    this.unwatch = exposures.watch(() => this.checkLists());
  }

  /**
   * SDK 1.x's server for this record (made on first use): the 2025 sessionful Streamable HTTP
   * serving connects it to its transport, and it is told of list changes.
   */
  get server(): Server {
    if (this.legacyServer === null) {
      const server = bindLegacyServer(this);
      this.legacyServer = server;
      this.onListChanged((list) => server.notification({ method: `notifications/${list}/list_changed` }));
    }
    return this.legacyServer;
  }

  /**
   * Adds where a changed list is announced (an SDK server's notification, an event bus); returns
   * what removes it. Only lists this record has served are announced.
   */
  onListChanged(sink: (list: ListKind) => Promise<void>): () => void {
    this.listChangeSinks.add(sink);
    return () => this.listChangeSinks.delete(sink);
  }

  /** The client said its roots changed: the project is asked again and the lists checked. */
  rootsChanged(): void {
    this.projects.rootsChanged();
    this.checkLists();
  }

  /** Stops the calls started by these JSON-RPC requests: their client went away mid-call. */
  abortRequests(ids: readonly RequestId[]): void {
    for (const id of ids) this.calls.get(id)?.abort();
  }

  /**
   * Makes these requests' answers share `budget`: they leave in one answer, which may weigh no more
   * than the kernel's one answer size. A call whose answer would pass it is answered with
   * `RESPONSE_TOO_LARGE`, and so is every call of theirs that has not run yet. Returns what ends it.
   */
  shareBudget(ids: readonly RequestId[], budget: AnswerBudget): () => void {
    for (const id of ids) this.budgets.set(id, budget);
    return () => {
      for (const id of ids) if (this.budgets.get(id) === budget) this.budgets.delete(id);
    };
  }

  /**
   * Stops watching, cancels every call still running (their process groups are stopped and their
   * jobs failed) and waits until those jobs are settled. The transport is closed by its owner.
   */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.unwatch();
    }
    for (const controller of this.calls.values()) controller.abort();
    await Promise.allSettled([...this.running, this.tasks.close()]);
    // What this client used is stored before its process may end (`loadout mcp` exits when the pipe closes).
    await this.services.usage.flush();
  }

  /**
   * Reports one use to the usage ledger, as the client that used it (its own name from
   * `initialize`) in the project it was served. Returns at once: the ledger is written in batches.
   */
  private used(exposure: SessionExposure, kind: UsageKind, name: string, event: 'invoked' | 'failed' = 'invoked'): void {
    this.services.usage.record({
      runtime: runtimeNameOf(this.clientName),
      project: exposure.session.project,
      kind,
      name,
      server: null,
      event,
      session: this.ledgerSession,
    });
  }

  private makeHandlers(): ReadonlyMap<string, McpHandler> {
    const handle =
      <T>(work: (request: T, extra: McpCall) => Promise<unknown>) =>
      async (request: T, extra: McpCall) => {
        // The client the next uses are told as: its own name, as the SDK serving this request has it.
        if (extra.clientName !== undefined) this.clientName = extra.clientName;
        try {
          const budget = this.budgets.get(extra.requestId);
          if (budget?.full === true) throw responseTooLarge('batch');
          const result = await work(request, extra);
          if (budget !== undefined && !budget.admit(answerBytes(JSON.stringify(result)))) throw responseTooLarge('batch');
          return result;
        } catch (error) {
          if (error instanceof JsonRpcError) throw error;
          const answer = jsonRpcErrorFor(error);
          if (answer.data === undefined) this.log(`mcp: ${(error as Error).stack ?? String(error)}`);
          throw new JsonRpcError(answer.code, answer.message, answer.data);
        }
      };
    const handlers = new Map<string, McpHandler>();
    const on = (method: string, handler: (request: never, extra: McpCall) => Promise<unknown>): void => {
      handlers.set(method, handler as McpHandler);
    };

    on(
      'tools/list',
      handle(async (request: { params?: { cursor?: string } }, extra) => {
        const exposure = await this.exposure(extra, 'tools');
        const page = paginate(exposure.tools, request.params?.cursor, PAGE_SIZE);
        if (request.params?.cursor === undefined) this.shownTools.clear();
        for (const tool of page.items) this.shownTools.set(tool.name, tool.task.dirName);
        return {
          tools: page.items.map((tool) => ({
            name: tool.name,
            title: tool.task.name,
            description: tool.task.description,
            inputSchema: tool.inputSchema,
            ...(tool.task.outputSchema === null ? {} : { outputSchema: tool.task.outputSchema }),
            ...(tool.task.mcpTask === 'never' ? {} : { execution: { taskSupport: tool.task.mcpTask } }),
            _meta: { 'loadout/dirName': tool.task.dirName, 'loadout/plugin': tool.task.plugin },
          })),
          ...page.next,
        };
      }),
    );

    on(
      'tools/call',
      handle(async (request: { params: { name: string; arguments?: Record<string, unknown>; _meta?: unknown } }, extra) => {
        const tasks = declaresTasks(extra.clientCapabilities, request.params._meta ?? extra.requestMeta);
        const call = this.callTool(request.params.name, request.params.arguments ?? {}, extra, tasks);
        this.running.add(call);
        try {
          return await call;
        } finally {
          this.running.delete(call);
        }
      }),
    );

    on(
      'resources/list',
      handle(async (request: { params?: { cursor?: string } }, extra) => {
        const exposure = await this.exposure(extra, 'resources');
        const page = paginate(exposure.resources, request.params?.cursor, RESOURCE_PAGE_SIZE);
        const resources: ResourceDescription[] = [];
        for (const entry of page.items) {
          resources.push(entry.description);
          if (entry.kind !== 'skill') continue;
          const served = skillPathOf(entry.record);
          for (const relative of listSkillFiles(entry.record)) {
            const mimeType = mimeTypeOf(relative);
            resources.push({
              uri: served === null ? skillUri(entry.record.id, relative) : skillFileUri(served, relative),
              name: `${entry.record.id}/${relative}`,
              ...(mimeType === null ? {} : { mimeType }),
            } as ResourceDescription);
          }
        }
        return { resources, ...page.next };
      }),
    );

    on(
      'resources/templates/list',
      handle(async () => ({
        resourceTemplates: [
          { uriTemplate: 'skill://{id}', name: 'skill', title: 'A skill', description: "A skill's SKILL.md", mimeType: 'text/markdown' },
          {
            uriTemplate: 'skill://{id}/{+path}',
            name: 'skill-file',
            title: 'A file of a skill',
            description: 'Any other file inside a skill folder',
          },
          {
            uriTemplate: 'loadout://agents/{id}',
            name: 'agent',
            title: 'A subagent definition',
            description: 'Its Markdown document: frontmatter and prompt',
            mimeType: 'text/markdown',
          },
          {
            uriTemplate: 'loadout://servers/{id}',
            name: 'server',
            title: 'An MCP server document',
            description: 'Credential values redacted',
            mimeType: 'application/json',
          },
        ],
      })),
    );

    on(
      'resources/read',
      handle(async (request: { params: { uri: string } }, extra) => {
        const uri = request.params.uri;
        const address = parseResourceUri(uri);
        const exposure = await this.exposure(extra, null);
        const session = exposure.session;
        if (address.kind === 'block')
          return { contents: [{ uri, mimeType: 'text/markdown', text: session.sections.get(address.section) ?? '' }] };
        if (address.kind === 'server') {
          const record = session.find<ServerRecord>('server', address.id);
          const document = record === undefined ? null : readRedactedServerDocument(record, sessionRootOf(session, record));
          if (document === null) throw new ResourceNotFoundError(uri, `no MCP server "${address.id}" is on in this session`);
          return { contents: [{ uri, mimeType: 'application/json', text: `${JSON.stringify(document, null, 2)}\n` }] };
        }
        if (address.kind === 'agent') {
          const agent = session.find('agent', address.id);
          const text = agent === undefined ? null : readTextInside(rootOf(session, agent), agent.path);
          if (text === null) throw new ResourceNotFoundError(uri, `no subagent "${address.id}" is on in this session`);
          this.used(exposure, 'agent', (agent as NonNullable<typeof agent>).id);
          return { contents: [{ uri, mimeType: 'text/markdown', text }] };
        }
        // A Skills-extension URI (`skill://<skill-path>/<file>`) first: for an owner's skill it is
        // the same URI as Loadout's own; a plugin's skill lives under its plugin's name.
        const served = resolveSkillFile(exposure, uri);
        if (served?.manifest === true) {
          const text = readTextInside(rootOf(session, served.record), served.record.path);
          if (text === null) throw new ResourceNotFoundError(uri, `the SKILL.md of "${served.record.id}" is gone`);
          this.used(exposure, 'skill', served.record.id);
          return { contents: [{ uri, mimeType: 'text/markdown', text }] };
        }
        if (served !== null) return { contents: [{ uri, ...readSkillFile(served.record, served.segments, uri) }] };
        const skill = session.find<SkillRecord>('skill', address.id);
        if (skill === undefined) throw new ResourceNotFoundError(uri, `no skill "${address.id}" is on in this session`);
        if (address.segments.length === 0) {
          const text = readTextInside(rootOf(session, skill), skill.path);
          if (text === null) throw new ResourceNotFoundError(uri, `the SKILL.md of "${skill.id}" is gone`);
          this.used(exposure, 'skill', skill.id);
          return { contents: [{ uri, mimeType: 'text/markdown', text }] };
        }
        return { contents: [{ uri, ...readSkillFile(skill, address.segments, uri) }] };
      }),
    );

    on(
      'prompts/list',
      handle(async (request: { params?: { cursor?: string } }, extra) => {
        const exposure = await this.exposure(extra, 'prompts');
        const page = paginate(exposure.prompts, request.params?.cursor, PAGE_SIZE);
        return {
          prompts: page.items.map((prompt) => ({
            name: prompt.name,
            title: prompt.record.name,
            ...(prompt.record.description === '' ? {} : { description: prompt.record.description }),
            ...(prompt.kind === 'command' ? { arguments: [commandArgument(prompt.record)] } : {}),
          })),
          ...page.next,
        };
      }),
    );

    on(
      'prompts/get',
      handle(async (request: { params: { name: string; arguments?: Record<string, string> } }, extra) => {
        const exposure = await this.exposure(extra, null);
        const prompt = exposure.promptsByName.get(request.params.name);
        if (prompt === undefined) throw new PromptNotFoundError(request.params.name);
        const document = readMarkdownInside(rootOf(exposure.session, prompt.record), prompt.record.path);
        if (document === null) throw new PromptNotFoundError(request.params.name);
        const body = prompt.kind === 'command' ? commandPrompt(document.body, request.params.arguments?.arguments ?? '') : document.body;
        this.used(exposure, prompt.kind === 'command' ? 'command' : 'skill', prompt.record.id);
        return {
          ...(prompt.record.description === '' ? {} : { description: prompt.record.description }),
          messages: [{ role: 'user', content: { type: 'text', text: body.trim() === '' ? prompt.record.description : body } }],
        };
      }),
    );

    on(
      'skills/list',
      handle(async (request: { params?: unknown }, extra) => listSkills(await this.exposure(extra, 'resources'), request.params)),
    );
    on(
      'skills/get',
      handle(async (request: { params?: unknown }, extra) => {
        const exposure = await this.exposure(extra, 'resources');
        const answer = getSkill(exposure, request.params);
        const served = resolveSkillFile(exposure, answer.skill.uri);
        if (served !== null) this.used(exposure, 'skill', served.record.id);
        return answer;
      }),
    );
    on(
      'tasks/get',
      handle(async (request: { params?: unknown }, extra) => this.tasks.get(this.tasksParams(request, extra, 'tasks/get'))),
    );
    on(
      'tasks/cancel',
      handle(async (request: { params?: unknown }, extra) => this.tasks.cancel(this.tasksParams(request, extra, 'tasks/cancel'))),
    );
    on(
      'tasks/update',
      handle(async (request: { params?: unknown }, extra) => this.tasks.update(this.tasksParams(request, extra, 'tasks/update'))),
    );
    for (const [method, handler] of Object.entries(this.customMethods(handle))) on(method, handler);
    return handlers;
  }

  /**
   * Methods beyond the SDK's own given to this connection (see {@link McpMethod}), answered beside
   * the extensions' through the same wrapper as the built-in ones (shared answer budget, coded
   * errors), with the session as it is for this request's project.
   */
  private customMethods(
    handle: <T>(work: (request: T, extra: McpCall) => Promise<unknown>) => (request: T, extra: McpCall) => Promise<unknown>,
  ): Record<string, McpHandler> {
    return Object.fromEntries(
      this.methods.map((custom) => [
        custom.method,
        handle(async (request: { params?: unknown }, extra) => {
          const params = request.params ?? {};
          if (typeof params !== 'object' || params === null || Array.isArray(params)) {
            throw new JsonRpcError(INVALID_PARAMS, `${custom.method}: params must be an object`);
          }
          return custom.handle(params as Record<string, unknown>, { exposure: () => this.exposure(extra, null), signal: extra.signal });
        }),
      ]),
    );
  }

  /** The session as it is now, for this request's project; `list` marks which list the client is shown. */
  private async exposure(extra: McpCall, list: ListKind | null): Promise<SessionExposure> {
    const exposure = await this.exposures.current(await this.projects.projectFor(extra));
    if (list !== null) this.served[list] = exposure.fingerprints[list];
    return exposure;
  }

  /**
   * Runs a tool call: as an MCP task when its task says so and the client speaks the Tasks
   * extension (answered at once with the task; see {@link startTask}), else held until its job
   * ends. `tasks` says whether the client declared the extension (then plain answers carry
   * `resultType: "complete"`, as the extension's protocol has every non-task answer do).
   */
  private async callTool(name: string, args: Record<string, unknown>, extra: McpCall, tasks: boolean): Promise<Record<string, unknown>> {
    const project = await this.projects.projectFor(extra);
    const exposure = await this.exposures.current(project);
    const tool = exposure.toolsByName.get(name);
    if (tool === undefined) {
      const held = exposure.heldTools.get(name);
      if (held !== undefined) refuseHeld(held);
      const unusable = exposure.unusableTools.get(name);
      if (unusable !== undefined) throw new ToolInputSchemaError(name, unusable.reason);
      throw await this.whyNoTool(name, project);
    }
    const complete = (result: ToolResult): Record<string, unknown> => (tasks ? { ...result, resultType: 'complete' } : result);
    // Refused before anything else is looked at: a tool that needs tasks, to a client without them.
    const asTask = runsAsTask(tool.task.mcpTask, tasks, name);
    const problem = tool.check?.(args) ?? null;
    if (problem !== null) return complete({ content: [{ type: 'text', text: problem }], isError: true });

    const controller = new AbortController();
    const stop = (): void => controller.abort();
    const progress = new ProgressReporter(extra);
    if (!asTask) {
      extra.signal.addEventListener('abort', stop, { once: true });
      this.calls.set(extra.requestId, controller);
    }
    // The session the tool was just found in is the workspace as it is now (its stamp was
    // checked); the lookup through it reads the task and its switch again before anything runs,
    // and a run that starts at once runs in it (a server's worker too, while the stamp holds), so
    // it stays open until the call ends.
    const release = asTask ? () => undefined : this.exposures.hold(exposure);
    try {
      if (asTask) return await this.startTask(exposure, tool, args);
      const job = await this.services.jobs.runToEnd(exposure.session, tool.task.dirName, args, {
        signal: controller.signal,
        cancelReason: CANCELLED_BY_CLIENT,
        // This connection records the call in the usage ledger itself, as its client.
        origin: 'mcp',
        onQueued: (queued) => progress.queued(queued),
        onOutput: (chunk) => progress.output(chunk.text),
        stillCurrent: () => this.exposures.isCurrent(exposure),
      });
      this.used(exposure, 'task', tool.task.dirName, job.status === 'succeeded' ? 'invoked' : 'failed');
      return complete(taskToolResult(job, tool.task, this.outputSchemas));
    } catch (error) {
      // An output that is not what the task declares is the server's failure, not the tool's answer.
      if (error instanceof TaskOutputInvalidError) throw error;
      const answer = jsonRpcErrorFor(error);
      if (answer.data === undefined) throw error;
      this.used(exposure, 'task', tool.task.dirName, 'failed');
      // The task is listed but cannot be run now (not runnable, gone since the list): tell the agent.
      return complete({ content: [{ type: 'text', text: answer.message }], isError: true, _meta: { 'loadout/code': answer.data.code } });
    } finally {
      release();
      progress.stop();
      this.calls.delete(extra.requestId);
      extra.signal.removeEventListener('abort', stop);
    }
  }

  /**
   * Starts a call as an MCP task and answers with the task once its job is stored; the request
   * is not held for the run. The task's job runs in the session the tool was found in, held until
   * the job ends; `tasks/cancel` (or the connection closing) cancels the job. A refusal before the
   * job is stored is thrown, to be answered as a plain call's is.
   */
  private async startTask(exposure: SessionExposure, tool: ExposedTool, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const created = await this.tasks.create(async (signal, stored): Promise<TaskOutcome> => {
      const release = this.exposures.hold(exposure);
      try {
        const job = await this.services.jobs.runToEnd(exposure.session, tool.task.dirName, args, {
          signal,
          cancelReason: CANCELLED_BY_CLIENT,
          origin: 'mcp',
          onQueued: (queued) => stored(`job ${queued.id} started`),
          stillCurrent: () => this.exposures.isCurrent(exposure),
        });
        this.used(exposure, 'task', tool.task.dirName, job.status === 'succeeded' ? 'invoked' : 'failed');
        return { result: { ...taskToolResult(job, tool.task, this.outputSchemas), resultType: 'complete' } };
      } finally {
        release();
      }
    });
    if ('task' in created) return { ...created.task };
    if ('result' in created.immediate) return created.immediate.result;
    throw new JsonRpcError(created.immediate.error.code, created.immediate.error.message, created.immediate.error.data);
  }

  /** A `tasks/*` request's params, once the client is known to speak the extension (for the session or this request). */
  private tasksParams(request: { params?: unknown }, extra: McpCall, method: string): unknown {
    const meta = typeof request.params === 'object' && request.params !== null ? (request.params as { _meta?: unknown })._meta : undefined;
    if (!declaresTasks(extra.clientCapabilities, meta ?? extra.requestMeta)) throw new TasksExtensionRequiredError(method);
    return request.params;
  }

  /**
   * Why `name` is not a tool of this session: a task that is off (and who decided), a task this
   * client was shown that is gone since, else unknown.
   */
  private async whyNoTool(name: string, project: string | null): Promise<Error> {
    const entries = (await this.services.state.resolveCapabilityState({ project })).filter((entry) => entry.kind === 'task');
    const names = assignToolNames(entries.map((entry) => ({ dirName: entry.id, plugin: entry.plugin, level: entry.level })));
    const shown = this.shownTools.get(name);
    // The task it was shown as, though another tool name fits it now (a name that collided no longer does).
    const entry =
      entries.find((candidate) => names.get(candidate.id) === name) ??
      (shown === undefined ? undefined : entries.find((candidate) => candidate.id === shown));
    if (entry !== undefined && !entry.enabled)
      return new ToolSwitchedOffError(
        name,
        entry.id,
        entry.decidedBy,
        offReason(entry.decidedBy, entry.plugin, project),
        shown !== undefined,
      );
    if (shown !== undefined && entry === undefined) return new ToolGoneError(name, shown);
    return new ToolNotFoundError(name);
  }

  /** Tells the client about every list it was shown that is no longer what it was shown. */
  private checkLists(): void {
    if (this.closed) return;
    if (this.checking !== null) {
      this.checkAgain = true;
      return;
    }
    this.checking = (async () => {
      do {
        this.checkAgain = false;
        const project = this.projects.known;
        if (project === undefined || Object.values(this.served).every((seen) => seen === null)) return;
        const exposure = await this.exposures.current(project);
        for (const list of ['tools', 'resources', 'prompts'] as const) {
          const seen = this.served[list];
          if (seen === null || seen === exposure.fingerprints[list]) continue;
          this.served[list] = exposure.fingerprints[list];
          if (this.closed) return;
          for (const sink of [...this.listChangeSinks])
            await sink(list).catch((error: Error) => this.log(`mcp: telling of a change: ${error.message}`));
        }
      } while (this.checkAgain && !this.closed);
    })()
      .catch((error: Error) => this.log(`mcp: checking for changes: ${error.message}`))
      .finally(() => {
        this.checking = null;
      });
  }
}

/**
 * The capabilities the server declares: `base` with each method's own merged in, one level deep
 * (two extensions each add their entry under `extensions`).
 */
function mergeCapabilities(base: Record<string, unknown>, extra: readonly Readonly<Record<string, unknown>>[]): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const capabilities of extra)
    for (const [key, value] of Object.entries(capabilities)) {
      const before = merged[key];
      merged[key] = isPlainObject(before) && isPlainObject(value) ? { ...before, ...value } : value;
    }
  return merged;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The longest runtime name the ledger keeps of what a client calls itself. */
const MAX_RUNTIME_NAME = 64;

/**
 * The runtime a client is, for the ledger: the name it gave in `initialize` (`claude-code`,
 * `codex-mcp-client`), folded to the ledger's plain form; `mcp` when it gave none.
 */
export function runtimeNameOf(clientName: string | undefined): string {
  const folded = (clientName ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, MAX_RUNTIME_NAME);
  return folded === '' ? 'mcp' : folded;
}

/** Words for why a task is off, by who decided. */
function offReason(decidedBy: string, plugin: string | null, project: string | null): string {
  switch (decidedBy) {
    case 'plugin-disabled':
      return `its plugin "${plugin ?? ''}" is disabled`;
    case 'plugin-not-installed':
      return `its plugin "${plugin ?? ''}" is not installed`;
    case 'project-override':
      return `it is switched off for the project ${project ?? ''}`;
    case 'global-default':
      return 'it is switched off for every project';
    default:
      return 'it is switched off';
  }
}

/** The one argument a command prompt takes: the text its `$ARGUMENTS` (and `$1` … `$9`, word by word) stand for. */
function commandArgument(record: CommandRecord): { name: string; description: string; required: false } {
  return {
    name: 'arguments',
    description: record.argumentHint === null ? 'What to pass to the command' : `What to pass to the command: ${record.argumentHint}`,
    required: false,
  };
}

/**
 * Progress notifications for one call, when the client asked for them (`_meta.progressToken`):
 * one when the job is stored, then the output as it arrives, at most every
 * {@link PROGRESS_INTERVAL_MS}. `progress` counts characters printed, so it only grows.
 */
class ProgressReporter {
  private printed = 0;
  private pending = '';
  private timer: NodeJS.Timeout | null = null;
  private readonly token: string | number | undefined;

  constructor(private readonly extra: McpCall) {
    this.token = extra.progressToken;
  }

  queued(job: Job): void {
    this.send(`job ${job.id} started`);
  }

  output(text: string): void {
    if (this.token === undefined) return;
    this.printed += text.length;
    this.pending += text;
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.flush();
    }, PROGRESS_INTERVAL_MS);
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private flush(): void {
    const text = this.pending.length > 1000 ? `…${this.pending.slice(-1000)}` : this.pending;
    this.pending = '';
    this.send(text);
  }

  private send(message: string): void {
    if (this.token === undefined) return;
    void this.extra
      .notify('notifications/progress', { progressToken: this.token, progress: this.printed + 1, message })
      .catch(() => undefined);
  }
}
