import fs from 'node:fs';
import path from 'node:path';
import type { Root } from '@loadout/kernel';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { readTaskEntry, type TaskRecord } from '@loadout/tasks';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isProcessAlive } from '@loadout/files';
import { TaskNotRunnableError } from './JobErrors.js';
import { ProcessGuardian } from './ProcessGuardian.js';
import { monotonicNow, RunDeadline } from './RunDeadline.js';
import { DEFAULT_TASK_RUNNER_SETTINGS, ProcessTaskRunner } from './TaskRunner.js';
import { taskTree } from './testing/index.js';

afterEach(removeTestdirs);

/** A real task folder under a fresh root, read the way the store reads it. */
function makeTask(dirName: string, tree: TreeDescription, plugin: string | null = null): TaskRecord {
  const rootDir = testdir({ tasks: { [dirName]: tree } });
  const root: Root = { dir: rootDir, level: 'global', plugin, writable: plugin === null };
  const folder = path.join(rootDir, 'tasks');
  const draft = readTaskEntry({ root, folder, name: dirName, path: path.join(folder, dirName), isDirectory: true }).records[0];
  if (draft === undefined) throw new Error('the test task did not read');
  return { ...draft, kind: 'task', level: 'global', plugin };
}

/** One guardian that is up, for the runs its process starts. */
const upGuardian = new ProcessGuardian();

/**
 * Every test runs both ways a task's process is started: by this process (a runner's first run,
 * while its guardian comes up) and by the guardian once it is up. Either way the task sees and
 * does the same, and the runner reports the same.
 */
const WAYS = [
  { way: 'started here', guardian: () => new ProcessGuardian() },
  { way: 'started by the guardian', guardian: () => upGuardian },
] as const;

let runner: (overrides?: Partial<typeof DEFAULT_TASK_RUNNER_SETTINGS>) => ProcessTaskRunner;

const probe = `
import fs from 'node:fs';
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify({ input, cwd: process.cwd(), env: process.env, ppid: process.ppid }));
`;

describe.each(WAYS)('ProcessTaskRunner, the process $way', ({ way, guardian }) => {
  beforeAll(async () => {
    await upGuardian.whenReady();
    runner = (overrides = {}) => new ProcessTaskRunner({ ...DEFAULT_TASK_RUNNER_SETTINGS, killGraceMs: 200, ...overrides }, guardian());
  });

  it('runs a .mjs task with node: input JSON on stdin, a fresh temporary folder, a bare environment', async () => {
    const task = makeTask('probe', taskTree({ name: 'Probe', implementation: 'run.mjs' }, { 'run.mjs': probe }));
    process.env.LOADOUT_TOKEN = 'a-secret-that-must-not-leak';
    try {
      const result = await runner().run(task, { input: { text: 'hi', n: [1, 2] }, project: null });
      expect(result).toMatchObject({ succeeded: true, exitCode: 0, timedOut: false, truncated: false });
      const seen = JSON.parse(result.stdout) as { input: unknown; cwd: string; env: Record<string, string>; ppid: number };
      expect(seen.ppid === process.pid).toBe(way === 'started here');
      expect(seen.input).toEqual({ text: 'hi', n: [1, 2] });
      expect(path.basename(seen.cwd)).toMatch(/^loadout-run-/);
      expect(fs.existsSync(seen.cwd)).toBe(false);
      expect(seen.env.LOADOUT_TASK_DIR).toBe(task.folder);
      expect(seen.env.LOADOUT_PROJECT).toBeUndefined();
      expect(seen.env.LOADOUT_RUN_ID).toMatch(new RegExp(`^${process.pid}-\\d+-[0-9a-f]{12}$`));
      expect(path.basename(seen.cwd)).toBe(`loadout-run-${seen.env.LOADOUT_RUN_ID}`);
      const allowed = new Set(['PATH', 'HOME', 'LANG', 'TMPDIR', 'LOADOUT_TASK_DIR', 'LOADOUT_RUN_ID']);
      // Node itself may add a few of its own; nothing of the server's environment beyond the list.
      expect(Object.keys(seen.env).filter((name) => !allowed.has(name) && !name.startsWith('NODE_') && name !== 'COLOR')).toEqual([]);
      expect(JSON.stringify(seen.env)).not.toContain('a-secret-that-must-not-leak');
    } finally {
      delete process.env.LOADOUT_TOKEN;
    }
  });

  it('works in the project folder when there is one, and gives no input as {}', async () => {
    const project = testdir({ 'notes.txt': 'hello' });
    const task = makeTask('probe', taskTree({ name: 'Probe', implementation: 'run.mjs' }, { 'run.mjs': probe }));
    const result = await runner().run(task, { project });
    const seen = JSON.parse(result.stdout) as { input: unknown; cwd: string; env: Record<string, string> };
    expect(seen).toMatchObject({ input: {}, cwd: project });
    expect(seen.env.LOADOUT_PROJECT).toBe(project);
  });

  it('runs a .sh task with bash and records a failing exit status and its stderr', async () => {
    const script = 'input=$(cat)\necho "got $input"\necho "something broke" >&2\nexit 3\n';
    const task = makeTask('fails', taskTree({ name: 'Fails', implementation: 'run.sh' }, { 'run.sh': script }));
    const result = await runner().run(task, { input: 'x', project: null });
    expect(result).toMatchObject({ succeeded: false, exitCode: 3, stdout: 'got "x"\n', stderr: 'something broke\n' });
  });

  it('stops the whole process group at the timeout, the task and what it started', async () => {
    const script = `
import { spawn } from 'node:child_process';
import fs from 'node:fs';
const child = spawn('sleep', ['30'], { stdio: 'ignore' });
fs.writeFileSync(process.env.LOADOUT_PROJECT + '/grandchild.pid', String(child.pid));
setInterval(() => {}, 1000);
`;
    const project = testdir();
    const task = makeTask('hangs', taskTree({ name: 'Hangs', implementation: 'run.mjs', timeout: 1 }, { 'run.mjs': script }));
    const started = Date.now();
    const result = await runner().run(task, { project });
    expect(result).toMatchObject({ succeeded: false, timedOut: true, exitCode: null });
    expect(Date.now() - started).toBeLessThan(5000);
    const grandchild = Number(fs.readFileSync(path.join(project, 'grandchild.pid'), 'utf8'));
    await expect.poll(() => isProcessAlive(grandchild)).toBe(false);
  });

  it('ends what a task left running in the background once the task itself exits', async () => {
    const script = '(sleep 30 & echo $! > "$LOADOUT_PROJECT/background.pid")\necho done\n';
    const project = testdir();
    const task = makeTask('leaves', taskTree({ name: 'Leaves', implementation: 'run.sh' }, { 'run.sh': script }));
    const result = await runner().run(task, { project });
    expect(result).toMatchObject({ succeeded: true, stdout: 'done\n' });
    const background = Number(fs.readFileSync(path.join(project, 'background.pid'), 'utf8'));
    await expect.poll(() => isProcessAlive(background)).toBe(false);
  });

  it('removes its scratch folder though the task filled it and what it left running still writes there', async () => {
    const script = 'echo kept > kept.txt\n(while :; do : > "late-$(date +%N)"; done) &\necho "$!"\npwd\n';
    const task = makeTask('fills', taskTree({ name: 'Fills', implementation: 'run.sh' }, { 'run.sh': script }));
    const result = await runner().run(task, { project: null });
    expect(result).toMatchObject({ succeeded: true });
    const [writer, scratch] = result.stdout.trim().split('\n');
    expect(path.basename(scratch ?? '')).toMatch(/^loadout-run-/);
    expect(fs.existsSync(scratch ?? '')).toBe(false);
    await expect.poll(() => isProcessAlive(Number(writer))).toBe(false);
  });

  it('keeps at most the configured output and says it cut the rest', async () => {
    const script = "process.stdout.write('é'.repeat(50_000)); process.stderr.write('e'.repeat(10));";
    const task = makeTask('loud', taskTree({ name: 'Loud', implementation: 'run.mjs' }, { 'run.mjs': script }));
    const chunks: string[] = [];
    const result = await runner({ maxStdoutBytes: 1001 }).run(task, { project: null, onOutput: (chunk) => chunks.push(chunk.text) });
    expect(result.truncated).toBe(true);
    expect(result.stdout).toBe('é'.repeat(500));
    expect(result.stderr).toBe('e'.repeat(10));
    expect(chunks.join('')).toBe(result.stdout + result.stderr);
  });

  it('stops the task when the abort signal fires', async () => {
    const task = makeTask('slow', taskTree({ name: 'Slow', implementation: 'run.sh' }, { 'run.sh': 'sleep 30\n' }));
    const controller = new AbortController();
    let pid = 0;
    const running = runner().run(task, { project: null, signal: controller.signal, onSpawn: (spawned) => (pid = spawned) });
    await expect.poll(() => pid).toBeGreaterThan(0);
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ succeeded: false, interrupted: true, timedOut: false });
    expect(isProcessAlive(pid)).toBe(false);
  });

  it("37 M7 has the guardian kill the task's group at its deadline, later each time the deadline moves", async () => {
    const task = makeTask('slow', taskTree({ name: 'Slow', implementation: 'run.sh' }, { 'run.sh': 'sleep 30 &\nwait\n' }));
    const started = monotonicNow();
    const deadline = new RunDeadline(started + 600);
    const moved = setTimeout(() => deadline.extend(monotonicNow() + 900), 300);
    // No abort signal and no timeout: only the deadline, held by the guardian, ends it.
    const result = await runner().run(task, { project: null, deadline });
    clearTimeout(moved);
    const ended = monotonicNow() - started;
    expect(result).toMatchObject({ succeeded: false, exitCode: null, signal: 'SIGKILL', timedOut: false, interrupted: false });
    expect(ended).toBeGreaterThanOrEqual(1150);
    expect(ended).toBeLessThan(5000);
  });

  it('refuses a held task before anything starts, with CAPABILITY_UNTRUSTED', async () => {
    const marker = path.join(testdir(), 'ran');
    const task = makeTask(
      'held',
      taskTree({ name: 'Held', implementation: 'run.sh' }, { 'run.sh': `touch ${JSON.stringify(marker)}\n` }),
      'acme',
    );
    const held: TaskRecord = { ...task, held: { decidedBy: 'unapproved-plugin', reason: 'plugin acme is not approved' } };
    await expect(runner().run(held, { project: null })).rejects.toMatchObject({
      code: 'CAPABILITY_UNTRUSTED',
      message: 'task/held is held (unapproved-plugin): plugin acme is not approved',
    });
    expect(fs.existsSync(marker)).toBe(false);
    expect((await runner().run(task, { project: null })).succeeded).toBe(true);
    expect(fs.existsSync(marker)).toBe(true);
  });

  it('refuses an implementation it has no interpreter for, or one that leads out of the task folder', async () => {
    const unknown = makeTask('ruby', taskTree({ name: 'Ruby', implementation: 'run.rb' }, { 'run.rb': 'puts 1' }));
    await expect(runner().run(unknown, { project: null })).rejects.toBeInstanceOf(TaskNotRunnableError);

    const outside = testdir({ 'evil.sh': 'echo escaped\n' });
    // The scan refuses both already; the runner checks again in case the folder changed since.
    const linked = makeTask('linked', taskTree({ name: 'Linked', implementation: 'run.sh' }, { 'run.sh': 'echo ok\n' }));
    fs.rmSync(linked.implementationPath);
    fs.symlinkSync(path.join(outside, 'evil.sh'), linked.implementationPath);
    await expect(runner().run(linked, { project: null })).rejects.toThrow(/outside the task folder/);

    const missing = makeTask('missing', taskTree({ name: 'Missing', implementation: 'run.sh' }, { 'run.sh': 'echo ok\n' }));
    fs.rmSync(missing.implementationPath);
    await expect(runner().run(missing, { project: null })).rejects.toThrow(/does not exist/);
  });
});

describe('ProcessTaskRunner, a task writing faster than its output is read', () => {
  it('holds the task back through the guardian instead of letting its output pile up there', async () => {
    const guardian = new ProcessGuardian();
    await guardian.whenReady();
    // 128 MiB as fast as the pipe takes it: relayed as base64 lines, more than the runner reads in time.
    const flood =
      "const chunk = Buffer.alloc(1 << 16, 97);\nlet left = 2048;\nconst write = () => { while (left > 0) { left -= 1; if (!process.stdout.write(chunk)) return void process.stdout.once('drain', write); } };\nwrite();\n";
    const task = makeTask('flood', taskTree({ name: 'Flood', implementation: 'run.mjs' }, { 'run.mjs': flood }));
    let pid = 0;
    let guardianPid = 0;
    const result = await new ProcessTaskRunner({ ...DEFAULT_TASK_RUNNER_SETTINGS, killGraceMs: 200 }, guardian).run(task, {
      project: null,
      onSpawn: (spawned) => {
        pid = spawned;
        guardianPid = Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
      },
    });
    expect(result).toMatchObject({ succeeded: true, exitCode: 0, truncated: true });
    expect(guardianPid).not.toBe(process.pid);
    // The guardian's peak memory: ~95 MB here (its own ~50 MB, a pipe's worth in flight and the garbage of
    // encoding it), where output piling up in it peaked near 580 MB.
    const peakKiB = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${guardianPid}/status`, 'utf8'))?.[1]);
    expect(peakKiB).toBeGreaterThan(0);
    expect(peakKiB).toBeLessThan(160 * 1024);
  }, 60_000);
});

describe('ProcessTaskRunner, when the guardian that started a task dies', () => {
  it('stops the task and what it started, and reports it ended by SIGKILL', async () => {
    const guardian = new ProcessGuardian();
    await guardian.whenReady();
    const script = 'sleep 30 &\necho $! > "$LOADOUT_PROJECT/background.pid"\nwait\n';
    const project = testdir();
    const task = makeTask('slow', taskTree({ name: 'Slow', implementation: 'run.sh' }, { 'run.sh': script }));
    let pid = 0;
    const running = new ProcessTaskRunner({ ...DEFAULT_TASK_RUNNER_SETTINGS, killGraceMs: 200 }, guardian).run(task, {
      project,
      onSpawn: (spawned) => (pid = spawned),
    });
    await expect.poll(() => fs.existsSync(path.join(project, 'background.pid'))).toBe(true);
    const background = Number(fs.readFileSync(path.join(project, 'background.pid'), 'utf8'));
    // The task's parent is the guardian.
    const parent = Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
    expect(parent).not.toBe(process.pid);
    process.kill(parent, 'SIGKILL');
    const result = await running;
    expect(result).toMatchObject({ succeeded: false, exitCode: null, signal: 'SIGKILL', timedOut: false, interrupted: false });
    await expect.poll(() => isProcessAlive(pid)).toBe(false);
    await expect.poll(() => isProcessAlive(background)).toBe(false);
  });
});
