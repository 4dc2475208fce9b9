import { randomUUID } from 'node:crypto';
import { InvalidInputError, NotFoundError } from '@loadout/files';
import { ClientCapabilityRequiredError, jsonRpcErrorFor } from './McpErrors.js';

/**
 * The MCP Tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`) as plain code: which calls
 * become tasks, the tasks a connection has started and their lifecycle, and the answers to
 * `tasks/get`, `tasks/cancel` and `tasks/update`, refusals as coded Loadout errors. Nothing here
 * knows the SDK; `extensionMethods.ts` registers it on a server. What runs is the caller's: a
 * Loadout job (see `McpConnection`), so a task is a job a client polls instead of waiting on.
 */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

/** How long a finished task stays readable by `tasks/get`. */
export const TASK_TTL_MS = 60 * 60 * 1000;
/** How often a client is asked to poll a working task. */
export const TASK_POLL_INTERVAL_MS = 250;
/**
 * How long a `tasks/get` of a working task waits for it to change before answering as it is: a
 * poll that arrives while the job runs is answered the moment the job ends, so the client learns
 * of the end without polling again, and a client that polls fast sends a few requests per run
 * instead of one per millisecond, each of which the server and the job's process would share the
 * CPU with. Never longer than the poll interval the task asks for, so no answer is older news
 * than a client following that interval would have had.
 */
export const TASK_GET_WAIT_MS = TASK_POLL_INTERVAL_MS;
/** The most tasks one registry keeps; past that the oldest finished ones are forgotten first. */
export const MAX_KEPT_TASKS = 1000;

/** The `_meta` key under which a request may declare client capabilities for itself alone. */
const REQUEST_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';

export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A JSON-RPC error as a failed task carries it. */
export interface TaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** How a task's work ended: a tool result (an error the tool reported included), or a protocol-level error. */
export type TaskOutcome = { readonly result: Readonly<Record<string, unknown>> } | { readonly error: TaskError };

/** A task as `tools/call` creates it and `tasks/get` shows it, without result or error. */
export interface McpTaskView {
  readonly taskId: string;
  readonly status: McpTaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
}

/** The work a task runs: `signal` aborts it; it calls `stored` once it can be polled (its job row exists). */
export type TaskWork = (signal: AbortSignal, stored: (statusMessage?: string) => void) => Promise<TaskOutcome>;

/** A tasks request (or a call of a tool that needs tasks) from a client that did not declare the extension. */
export class TasksExtensionRequiredError extends ClientCapabilityRequiredError {
  constructor(what: string) {
    super('MCP_TASKS_EXTENSION_REQUIRED', `${what} needs the ${TASKS_EXTENSION_ID} extension, which the client did not declare`, {
      extensions: { [TASKS_EXTENSION_ID]: {} },
    });
  }
}

export class McpTaskNotFoundError extends NotFoundError {
  constructor(taskId: string) {
    super(
      'MCP_TASK_NOT_FOUND',
      `no task "${taskId.length > 80 ? `${taskId.slice(0, 80)}…` : taskId}" on this connection (it may have expired)`,
    );
  }
}

export class McpTaskRequestInvalidError extends InvalidInputError {
  constructor(reason: string) {
    super('MCP_TASK_REQUEST_INVALID', `tasks request: ${reason}`);
  }
}

/**
 * Whether a request may have a task made for it: the client declared the extension when it
 * connected (`sessionCapabilities`), or for this request alone in its `_meta`.
 */
export function declaresTasks(sessionCapabilities: unknown, requestMeta: unknown): boolean {
  if (hasTasksExtension(sessionCapabilities)) return true;
  return isRecord(requestMeta) && hasTasksExtension(requestMeta[REQUEST_CAPABILITIES_META]);
}

function hasTasksExtension(capabilities: unknown): boolean {
  return isRecord(capabilities) && isRecord(capabilities.extensions) && isRecord(capabilities.extensions[TASKS_EXTENSION_ID]);
}

/**
 * Whether a call of a task that declares `support` (its `mcp-task`) runs as an MCP task: never
 * for `never`, when the client speaks the extension for `optional`; `required` refuses a client
 * that does not rather than hold its request for a long run.
 */
export function runsAsTask(support: 'never' | 'optional' | 'required', declared: boolean, toolName: string): boolean {
  if (support === 'never') return false;
  if (support === 'required' && !declared) throw new TasksExtensionRequiredError(`tool "${toolName}"`);
  return declared;
}

interface KeptTask {
  readonly taskId: string;
  status: McpTaskStatus;
  statusMessage: string | undefined;
  readonly createdAt: number;
  lastUpdatedAt: number;
  outcome: TaskOutcome | null;
  readonly controller: AbortController;
  readonly settled: Promise<void>;
  /** Resolved (and replaced) whenever its status changes, for the `tasks/get` waiting on it. */
  changed: { readonly promise: Promise<void>; readonly resolve: () => void };
}

/** The answer `tools/call` gives when it made a task: the task itself, flat, marked as one. */
export type CreateTaskResult = McpTaskView & { readonly resultType: 'task' };

/**
 * The tasks of one connection. A task is working until its work settles: completed with the
 * tool's result (a tool that reported an error is still completed, with `isError`), failed with
 * the error when its work could not give a result, or cancelled when the client asked. Finished
 * tasks are kept for {@link TASK_TTL_MS}, at most {@link MAX_KEPT_TASKS} of them.
 */
export class McpTasks {
  private readonly tasks = new Map<string, KeptTask>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly getWaitMs: number = TASK_GET_WAIT_MS,
  ) {}

  /**
   * Starts `work` as a task and answers once it is stored, so a `tasks/get` right after finds
   * it. Work that settles before it is stored (refused before any job was made) gives its
   * outcome instead, and no task is kept: the caller answers it as a plain result.
   */
  async create(work: TaskWork): Promise<{ readonly task: CreateTaskResult } | { readonly immediate: TaskOutcome }> {
    this.forgetExpired();
    const controller = new AbortController();
    let markStored: (message?: string) => void = () => undefined;
    const stored = new Promise<{ message?: string }>((done) => (markStored = (message) => done({ message })));
    const running = work(controller.signal, (message) => markStored(message));
    const first = await Promise.race([
      stored,
      running.then(
        (outcome) => ({ outcome }),
        (error: unknown) => ({ failure: error }),
      ),
    ]);
    if ('failure' in first) throw first.failure;
    if ('outcome' in first) return { immediate: first.outcome };
    const at = this.now();
    const task: KeptTask = {
      taskId: randomUUID(),
      status: 'working',
      statusMessage: first.message,
      createdAt: at,
      lastUpdatedAt: at,
      outcome: null,
      controller,
      changed: signal(),
      settled: running.then(
        (outcome) => this.settle(task, outcome),
        (error: unknown) => this.settle(task, { error: taskErrorOf(error) }),
      ),
    };
    this.tasks.set(task.taskId, task);
    return { task: { resultType: 'task', ...this.view(task) } };
  }

  /**
   * `tasks/get`: the task, with its result or error once it has one. A working task is answered
   * once it changes, or after {@link TASK_GET_WAIT_MS} as it still is.
   */
  async get(params: unknown): Promise<Record<string, unknown>> {
    const task = this.find(params);
    if (task.status === 'working') await this.changeOf(task);
    const outcome = task.status === 'completed' || task.status === 'failed' ? task.outcome : null;
    return {
      resultType: 'complete',
      ...this.view(task),
      ...(outcome === null ? {} : 'result' in outcome ? { result: outcome.result } : { error: outcome.error }),
    };
  }

  /** `tasks/cancel`: stops a working task (its job is cancelled); a finished one stays as it ended. */
  cancel(params: unknown): Record<string, unknown> {
    const task = this.find(params);
    if (task.status === 'working' || task.status === 'input_required') {
      task.status = 'cancelled';
      task.statusMessage = 'cancelled by the client';
      task.lastUpdatedAt = this.now();
      this.announce(task);
      task.controller.abort();
    }
    return { resultType: 'complete' };
  }

  /** `tasks/update`: answers a task that asked for input; Loadout's tasks never ask, so there is nothing to answer. */
  update(params: unknown): never {
    const task = this.find(params);
    throw new McpTaskRequestInvalidError(
      `task "${task.taskId}" is ${task.status}, not waiting for input (Loadout tasks never ask for any)`,
    );
  }

  /** Stops every working task and waits until their work has settled. */
  async close(): Promise<void> {
    const working = [...this.tasks.values()].filter((task) => task.outcome === null);
    for (const task of working) task.controller.abort();
    await Promise.allSettled(working.map((task) => task.settled));
  }

  private settle(task: KeptTask, outcome: TaskOutcome): void {
    task.outcome = outcome;
    if (task.status === 'cancelled') return;
    task.status = 'result' in outcome ? 'completed' : 'failed';
    task.statusMessage = 'error' in outcome ? outcome.error.message : undefined;
    task.lastUpdatedAt = this.now();
    this.announce(task);
  }

  /** Resolves when `task` next changes, or after {@link TASK_GET_WAIT_MS}, whichever comes first. */
  private async changeOf(task: KeptTask): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((done) => (timer = setTimeout(done, this.getWaitMs)));
    try {
      await Promise.race([task.changed.promise, waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Wakes every `tasks/get` waiting on `task`; the next one waits for the change after this. */
  private announce(task: KeptTask): void {
    const changed = task.changed;
    task.changed = signal();
    changed.resolve();
  }

  private find(params: unknown): KeptTask {
    if (!isRecord(params) || typeof params.taskId !== 'string')
      throw new McpTaskRequestInvalidError('params.taskId (a string) is required');
    this.forgetExpired();
    const task = this.tasks.get(params.taskId);
    if (task === undefined) throw new McpTaskNotFoundError(params.taskId);
    return task;
  }

  private view(task: KeptTask): McpTaskView {
    return {
      taskId: task.taskId,
      status: task.status,
      ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
      createdAt: new Date(task.createdAt).toISOString(),
      lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
      ttlMs: TASK_TTL_MS,
      pollIntervalMs: TASK_POLL_INTERVAL_MS,
    };
  }

  /** Forgets finished tasks past their time, then the oldest finished ones while too many are kept. */
  private forgetExpired(): void {
    const now = this.now();
    const finished = [...this.tasks.values()].filter((task) => task.outcome !== null || task.status === 'cancelled');
    for (const task of finished) if (task.lastUpdatedAt + TASK_TTL_MS < now) this.tasks.delete(task.taskId);
    for (const task of finished) {
      if (this.tasks.size < MAX_KEPT_TASKS) break;
      this.tasks.delete(task.taskId);
    }
  }
}

/** A promise and what resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** A thrown error as a failed task's error: Loadout's refusals keep their code, anything else says nothing of the inside. */
export function taskErrorOf(error: unknown): TaskError {
  const answer = jsonRpcErrorFor(error);
  return answer.data === undefined
    ? { code: answer.code, message: answer.message }
    : { code: answer.code, message: answer.message, data: answer.data };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
