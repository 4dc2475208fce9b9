import path from 'node:path';
import { type Root } from '@loadout/kernel';
import { isProcessAlive } from '@loadout/files';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { readTaskEntry, type TaskRecord } from '@loadout/tasks';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProcessGuardian } from '../../src/ProcessGuardian.js';
import { DEFAULT_TASK_RUNNER_SETTINGS, ProcessTaskRunner, type TaskRunnerSettings } from '../../src/TaskRunner.js';
import { taskTree } from '../../src/testing/index.js';

// Item 13 of the hardening issue: a task's child that leaves the task's process group (`setsid`)
// used to outlive the run. Each test starts such a child, prints its pid, and looks after the run.

const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  removeTestdirs();
});

function shellTask(script: string): TaskRecord {
  const rootDir = testdir({ tasks: { escape: taskTree({ name: 'Escape', implementation: 'run.sh' }, { 'run.sh': script }) } });
  const root: Root = { dir: rootDir, level: 'global', plugin: null, writable: true };
  const folder = path.join(rootDir, 'tasks');
  const draft = readTaskEntry({ root, folder, name: 'escape', path: path.join(folder, 'escape'), isDirectory: true }).records[0];
  if (draft === undefined) throw new Error('the test task did not read');
  return { ...draft, kind: 'task', level: 'global', plugin: null };
}

/** Runs the task and returns the pids it printed, each one remembered for clean-up. */
async function pidsPrintedBy(script: string, settings: Partial<TaskRunnerSettings> = {}): Promise<number[]> {
  const runner = new ProcessTaskRunner({ ...DEFAULT_TASK_RUNNER_SETTINGS, killGraceMs: 200, ...settings }, guardian());
  const result = await runner.run(shellTask(script), { project: null });
  const pids = result.stdout.trim().split(/\s+/).map(Number);
  expect(
    pids.every((pid) => Number.isInteger(pid) && pid > 0),
    result.stdout + result.stderr,
  ).toBe(true);
  leftovers.push(...pids);
  return pids;
}

const QUIET = '>/dev/null 2>&1 </dev/null';
/**
 * Waits until the last background child runs `sleep` itself: by then it has left the task's group
 * (`setsid` comes first) and dropped whatever environment `env -i` dropped.
 */
const STARTED = 'until [ "$(cat /proc/$!/comm 2>/dev/null)" = sleep ]; do sleep 0.02; done\n';

/** One guardian that is up, for the runs its process starts. */
const upGuardian = new ProcessGuardian();
/** The guardian of the next runner: a new one (the task is started here) or {@link upGuardian}. */
let guardian: () => ProcessGuardian;

describe.each([
  { way: 'started here', next: () => new ProcessGuardian() },
  { way: 'started by the guardian', next: () => upGuardian },
])('13 task descendants, the task $way', ({ next }) => {
  beforeAll(async () => {
    await upGuardian.whenReady();
    guardian = next;
  });

  it('13 a child started with setsid does not outlive the run', async () => {
    const [pid] = await pidsPrintedBy(`setsid sleep 300 ${QUIET} &\n${STARTED}echo $!\n`);
    expect(isProcessAlive(pid as number)).toBe(false);
  });

  it('13 a daemon that leaves the session and is orphaned at once does not outlive the run', async () => {
    // sh leaves the group before it starts sleep, and has exited when the task goes on.
    const [pid] = await pidsPrintedBy(`setsid sh -c 'sleep 300 ${QUIET} & echo $!'\n`);
    expect(isProcessAlive(pid as number)).toBe(false);
  });

  it('13 a descendant that also drops the environment is stopped once the runner has seen it', async () => {
    const [pid] = await pidsPrintedBy(`setsid env -i sleep 300 ${QUIET} &\n${STARTED}echo $!\nsleep 0.5\n`, { descendantPollMs: 20 });
    expect(isProcessAlive(pid as number)).toBe(false);
  });

  it('13 the limit: a descendant that leaves the group, drops the environment and is orphaned before the runner looks escapes', async () => {
    // The runner looks when the task starts and then every descendantPollMs: here the child comes
    // after the first look, and the task is over long before the second.
    const [pid] = await pidsPrintedBy(`sleep 0.5\nsetsid env -i sleep 300 ${QUIET} &\n${STARTED}echo $!\n`, { descendantPollMs: 60_000 });
    expect(isProcessAlive(pid as number)).toBe(true);
  });
});
