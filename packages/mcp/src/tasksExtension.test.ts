import { NotFoundError } from '@loadout/files';
import { describe, expect, it } from 'vitest';
import { jsonRpcErrorFor } from './McpErrors.js';
import {
  declaresTasks,
  McpTaskNotFoundError,
  McpTaskRequestInvalidError,
  McpTasks,
  runsAsTask,
  TASK_TTL_MS,
  TASKS_EXTENSION_ID,
  type TaskOutcome,
  TasksExtensionRequiredError,
} from './tasksExtension.js';

/** Work that is stored at once and settles when the test says so. */
function controlledWork(): {
  work: (signal: AbortSignal, stored: (message?: string) => void) => Promise<TaskOutcome>;
  finish: (outcome: TaskOutcome) => void;
  fail: (error: unknown) => void;
  aborted: () => boolean;
} {
  let finish: (outcome: TaskOutcome) => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  let signal: AbortSignal | null = null;
  return {
    work: (given, stored) => {
      signal = given;
      const settled = new Promise<TaskOutcome>((resolve, reject) => {
        finish = resolve;
        fail = reject;
        given.addEventListener('abort', () => resolve({ result: { content: [{ type: 'text', text: 'stopped' }], isError: true } }));
      });
      stored('job 1 started');
      return settled;
    },
    finish: (outcome) => finish(outcome),
    fail: (error) => fail(error),
    aborted: () => signal?.aborted === true,
  };
}

async function created(tasks: McpTasks, work: Parameters<McpTasks['create']>[0]): Promise<string> {
  const answer = await tasks.create(work);
  if (!('task' in answer)) throw new Error('no task was made');
  return answer.task.taskId;
}

describe('the Tasks extension', () => {
  it('knows a client speaks it from its capabilities or from one request’s _meta', () => {
    expect(declaresTasks({ extensions: { [TASKS_EXTENSION_ID]: {} } }, undefined)).toBe(true);
    expect(declaresTasks({}, { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION_ID]: {} } } })).toBe(true);
    expect(declaresTasks({ extensions: {} }, { other: 1 })).toBe(false);
    expect(declaresTasks(undefined, undefined)).toBe(false);
  });

  it('runs a call as a task only where the task says so, and refuses a required one to a client without the extension', () => {
    expect(runsAsTask('never', true, 't')).toBe(false);
    expect(runsAsTask('optional', false, 't')).toBe(false);
    expect(runsAsTask('optional', true, 't')).toBe(true);
    expect(runsAsTask('required', true, 't')).toBe(true);
    expect(() => runsAsTask('required', false, 'slow')).toThrow(TasksExtensionRequiredError);
    const answer = jsonRpcErrorFor(new TasksExtensionRequiredError('tool "slow"'));
    expect(answer).toEqual({
      code: -32021,
      message: expect.stringContaining('tool "slow" needs the io.modelcontextprotocol/tasks extension'),
      data: { code: 'MCP_TASKS_EXTENSION_REQUIRED', requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
    });
  });

  it('answers once the work is stored, shows it working, then completed with its result inlined', async () => {
    const tasks = new McpTasks();
    const run = controlledWork();
    const answer = await tasks.create(run.work);
    expect(answer).toEqual({
      task: {
        resultType: 'task',
        taskId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        status: 'working',
        statusMessage: 'job 1 started',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        lastUpdatedAt: expect.any(String),
        ttlMs: TASK_TTL_MS,
        pollIntervalMs: expect.any(Number),
      },
    });
    const taskId = (answer as { task: { taskId: string } }).task.taskId;
    expect(await tasks.get({ taskId })).not.toHaveProperty('result');
    run.finish({ result: { content: [{ type: 'text', text: 'done' }] } });
    await new Promise((done) => setImmediate(done));
    expect(await tasks.get({ taskId })).toMatchObject({
      resultType: 'complete',
      taskId,
      status: 'completed',
      result: { content: [{ type: 'text', text: 'done' }] },
    });
    expect(await tasks.get({ taskId })).not.toHaveProperty('error');
  });

  it('holds a tasks/get of a working task until the task ends, and answers at once when it has', async () => {
    // A wait far longer than the test: only the task's end can answer the first get in time.
    const tasks = new McpTasks(Date.now, 60_000);
    const run = controlledWork();
    const taskId = await created(tasks, run.work);
    let answered: Record<string, unknown> | null = null;
    const polling = tasks.get({ taskId }).then((answer) => (answered = answer));
    await new Promise((done) => setTimeout(done, 20));
    expect(answered).toBeNull();
    run.finish({ result: { content: [{ type: 'text', text: 'done' }] } });
    await polling;
    expect(answered).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'done' }] } });
    // Ended: the next get waits for nothing.
    const started = Date.now();
    expect(await tasks.get({ taskId })).toMatchObject({ status: 'completed' });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('answers a held tasks/get when the task is cancelled, and a still-working task after the wait as it is', async () => {
    const tasks = new McpTasks(Date.now, 60_000);
    const run = controlledWork();
    const taskId = await created(tasks, run.work);
    const polling = tasks.get({ taskId });
    tasks.cancel({ taskId });
    expect(await polling).toMatchObject({ status: 'cancelled' });

    const short = new McpTasks(Date.now, 30);
    const slow = controlledWork();
    const slowId = await created(short, slow.work);
    const started = Date.now();
    expect(await short.get({ taskId: slowId })).toMatchObject({ status: 'working' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    await short.close();
  });

  it('fails a task whose work throws after it was stored, with a JSON-RPC error and no result', async () => {
    const tasks = new McpTasks();
    const run = controlledWork();
    const taskId = await created(tasks, run.work);
    run.fail(new NotFoundError('SOMETHING_GONE', 'it went away'));
    await new Promise((done) => setImmediate(done));
    const failed = await tasks.get({ taskId });
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32602, message: 'it went away', data: { code: 'SOMETHING_GONE' } } });
    expect(failed).not.toHaveProperty('result');
  });

  it('cancels a working task (its work is told to stop), acks with an empty answer, and acks the same for a finished one', async () => {
    const tasks = new McpTasks();
    const run = controlledWork();
    const taskId = await created(tasks, run.work);
    expect(tasks.cancel({ taskId })).toEqual({ resultType: 'complete' });
    expect(run.aborted()).toBe(true);
    await new Promise((done) => setImmediate(done));
    expect(await tasks.get({ taskId })).toMatchObject({ status: 'cancelled' });
    expect(await tasks.get({ taskId })).not.toHaveProperty('result');
    expect(tasks.cancel({ taskId })).toEqual({ resultType: 'complete' });
    await tasks.close();
  });

  it('gives work that settles before it is stored back as it is, and throws what fails before it is stored', async () => {
    const tasks = new McpTasks();
    const immediate = await tasks.create(async () => ({ result: { content: [] } }));
    expect(immediate).toEqual({ immediate: { result: { content: [] } } });
    await expect(tasks.create(async () => Promise.reject(new Error('refused before any job')))).rejects.toThrow('refused before any job');
  });

  it('refuses unknown ids, params without a task id, and updates (no Loadout task asks for input)', async () => {
    const tasks = new McpTasks();
    await expect(tasks.get({ taskId: 'nope' })).rejects.toThrow(McpTaskNotFoundError);
    expect(jsonRpcErrorFor(new McpTaskNotFoundError('nope')).code).toBe(-32602);
    await expect(tasks.get({})).rejects.toThrow(McpTaskRequestInvalidError);
    expect(() => tasks.cancel('x')).toThrow(McpTaskRequestInvalidError);
    const run = controlledWork();
    const taskId = await created(tasks, run.work);
    expect(() => tasks.update({ taskId, inputResponses: {} })).toThrow(/not waiting for input/);
    await tasks.close();
    expect(run.aborted()).toBe(true);
  });

  it('keeps a finished task for its time to live, then forgets it', async () => {
    let now = 1_000_000;
    const tasks = new McpTasks(() => now);
    const taskId = await created(tasks, async (_signal, stored) => {
      stored();
      return { result: { content: [] } };
    });
    await new Promise((done) => setImmediate(done));
    now += TASK_TTL_MS;
    expect(await tasks.get({ taskId })).toMatchObject({ status: 'completed' });
    now += 1;
    await expect(tasks.get({ taskId })).rejects.toThrow(McpTaskNotFoundError);
  });
});
