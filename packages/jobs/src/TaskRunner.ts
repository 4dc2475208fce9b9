import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { DocumentRefusedError, realpathInside, refuseHeld, token } from '@loadout/kernel';
import { describeRunnableExtensions, type TaskRecord, taskInterpreterOf } from '@loadout/tasks';
import { inject, injectable } from 'tsyringe';
import { ProcessGuardian, type TaskProcess } from './ProcessGuardian.js';
import type { RunDeadline } from './RunDeadline.js';
import { signalGroup } from './processGroup.js';
import { makeScratchFolder, newRunId, processesBefore, removeEmptyScratchFolder, removeScratchFolder, RUN_ID_VARIABLE, RunProcesses } from './runProcesses.js';
import { TaskNotRunnableError } from './JobErrors.js';

/** A piece of what a running task printed. */
export interface OutputChunk {
  readonly stream: 'stdout' | 'stderr';
  readonly text: string;
}

export interface TaskRunOptions {
  /** Written to the task's stdin as JSON; undefined becomes `{}`. */
  readonly input?: unknown;
  /** The session's project (its real path): the working folder. Null runs in a fresh temporary folder. */
  readonly project: string | null;
  /** Aborting stops the task's whole process group. */
  readonly signal?: AbortSignal;
  readonly onOutput?: (chunk: OutputChunk) => void;
  /** Called once the process exists, with its pid (also its process group id). */
  readonly onSpawn?: (pid: number) => void;
  /**
   * The moment the task's process group is killed unless the deadline moves first: a job's lease.
   * The guardian process holds it, so it is kept even while this process is frozen.
   */
  readonly deadline?: RunDeadline;
}

export interface TaskRunResult {
  /** Exit status 0, in time, not stopped. */
  readonly succeeded: boolean;
  /** Null when the process was ended by a signal. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  /** Stopped through the abort signal (the server is stopping). */
  readonly interrupted: boolean;
  readonly stdout: string;
  readonly stderr: string;
  /** True when either stream printed more than the runner keeps. */
  readonly truncated: boolean;
  readonly durationMs: number;
}

/**
 * Runs a task's implementation as a child process. Callers hand it a record resolved through
 * `TaskStore.getTaskByDirName`; the runner never looks a task up by itself.
 */
export interface TaskRunner {
  run(task: TaskRecord, options: TaskRunOptions): Promise<TaskRunResult>;
}
export const TaskRunner = token<TaskRunner>('jobs.taskRunner');

export interface TaskRunnerSettings {
  /** Used when the task declares no `timeout`. */
  readonly defaultTimeoutSeconds: number;
  /** Bytes of stdout kept; the rest is dropped and the result marked truncated. */
  readonly maxStdoutBytes: number;
  readonly maxStderrBytes: number;
  /** How long a stopped task gets between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
  /**
   * How often the runner looks at a running task's process tree, so that a descendant that leaves
   * the task's process group and environment is still known when the run ends.
   */
  readonly descendantPollMs: number;
}
export const TaskRunnerSettings = token<TaskRunnerSettings>('jobs.taskRunnerSettings');

export const DEFAULT_TASK_RUNNER_SETTINGS: TaskRunnerSettings = {
  defaultTimeoutSeconds: 300,
  maxStdoutBytes: 1024 * 1024,
  maxStderrBytes: 256 * 1024,
  killGraceMs: 2000,
  descendantPollMs: 250,
};

/** The variables a task gets from the server's environment; nothing else leaks (no token). */
const PASSED_ENV = ['PATH', 'HOME', 'LANG', 'TMPDIR'] as const;

/** The program that runs an implementation file, from the tasks package's one list of extensions. */
export function interpreterFor(file: string): string | null {
  const interpreter = taskInterpreterOf(file);
  return interpreter === 'node' ? process.execPath : interpreter;
}

/**
 * Checks that a task can be run before it is queued or run: not held by trust
 * (`CAPABILITY_UNTRUSTED`), an interpreter for its extension and an implementation file that
 * really lies in the task's folder (a link leading out is refused). Returns the implementation's
 * real path.
 */
export function checkRunnable(task: TaskRecord): { interpreter: string; file: string } {
  refuseHeld(task);
  const interpreter = interpreterFor(task.implementationPath);
  if (interpreter === null) {
    throw new TaskNotRunnableError(task.dirName, `no interpreter for "${task.implementation}" (runnable: ${describeRunnableExtensions()})`);
  }
  let real: string | null;
  try {
    real = realpathInside(task.folder, task.implementationPath);
  } catch (error) {
    if (error instanceof DocumentRefusedError) throw new TaskNotRunnableError(task.dirName, `implementation "${task.implementation}" leads outside the task folder`);
    throw error;
  }
  if (real === null || !fs.statSync(real).isFile()) {
    throw new TaskNotRunnableError(task.dirName, `implementation file "${task.implementation}" does not exist`);
  }
  return { interpreter, file: real };
}

@injectable()
export class ProcessTaskRunner implements TaskRunner {
  constructor(
    @inject(TaskRunnerSettings) private readonly settings: TaskRunnerSettings,
    @inject(ProcessGuardian) private readonly guardian: ProcessGuardian = new ProcessGuardian(),
  ) {}

  async run(task: TaskRecord, options: TaskRunOptions): Promise<TaskRunResult> {
    const { interpreter, file } = checkRunnable(task);
    const runId = newRunId();
    // Named after the run, so a server that starts after this process was killed removes it.
    const scratch = options.project === null ? makeScratchFolder(runId) : null;
    // Emptied as the task's process exits, on the thread pool while the run's end scan runs here.
    let emptied = Promise.resolve(false);
    const onExit = scratch === null ? undefined : () => void (emptied = removeEmptyScratchFolder(scratch));
    try {
      return await this.spawnTask(task, interpreter, file, scratch ?? (options.project as string), runId, options, onExit);
    } finally {
      if (scratch !== null && !(await emptied)) removeScratchFolder(scratch);
    }
  }

  /** Starts the task's process from this process, its input written to its stdin. */
  private spawnHere(interpreter: string, file: string, cwd: string, env: Record<string, string>, input: string): TaskProcess {
    const child = spawn(interpreter, [file], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    child.stdin.on('error', () => undefined); // a task that never reads its input is fine
    child.stdin.end(input);
    return child;
  }

  /** Runs the process to its end; `onExit` is called as its main process exits, before the end scan. */
  private spawnTask(
    task: TaskRecord,
    interpreter: string,
    file: string,
    cwd: string,
    runId: string,
    options: TaskRunOptions,
    onExit?: () => void,
  ): Promise<TaskRunResult> {
    const env: Record<string, string> = {};
    for (const name of PASSED_ENV) {
      const value = process.env[name];
      if (value !== undefined) env[name] = value;
    }
    env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
    env.LOADOUT_TASK_DIR = task.folder;
    if (options.project !== null) env.LOADOUT_PROJECT = options.project;
    env[RUN_ID_VARIABLE] = runId;

    const input = JSON.stringify(options.input === undefined ? {} : options.input);
    const started = Date.now();
    // Taken before the spawn: nothing in it can be the run's, so the run's end need not read it.
    const older = processesBefore();
    // Its own process group (and session), so a timeout or a stop reaches everything it started;
    // started by the guardian once it is up, which lists the group itself.
    const guarded = this.guardian.spawn({ file: interpreter, args: [file], cwd, env, input }, options.deadline?.at);
    const child: TaskProcess = guarded ?? this.spawnHere(interpreter, file, cwd, env, input);
    const stdout = new BoundedText(this.settings.maxStdoutBytes);
    const stderr = new BoundedText(this.settings.maxStderrBytes);
    let timedOut = false;
    let interrupted = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let processes: RunProcesses | null = null;
    let cleared: Promise<unknown> = Promise.resolve();
    let unguard: () => void = () => undefined;

    return new Promise<TaskRunResult>((resolve, reject) => {
      const timers: NodeJS.Timeout[] = [];
      let settled = false;
      const stop = (): void => {
        if (child.pid === undefined || exited !== null) return;
        const pid = child.pid;
        signalGroup(pid, 'SIGTERM');
        timers.push(setTimeout(() => signalGroup(pid, 'SIGKILL'), this.settings.killGraceMs));
      };
      const onAbort = (): void => {
        interrupted = true;
        stop();
      };
      const settle = (outcome: { error: Error } | { result: TaskRunResult }): void => {
        if (settled) return;
        settled = true;
        for (const timer of timers) clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        if ('error' in outcome) reject(outcome.error);
        else resolve(outcome.result);
      };
      const finish = (): void => void cleared.then(report);
      const report = (): void => {
        const end = exited ?? { code: null, signal: null };
        settle({
          result: {
            succeeded: end.code === 0 && !timedOut && !interrupted,
            exitCode: end.code,
            signal: end.signal,
            timedOut,
            interrupted,
            stdout: stdout.text,
            stderr: stderr.text,
            truncated: stdout.truncated || stderr.truncated,
            durationMs: Date.now() - started,
          },
        });
      };

      child.once('error', (error: NodeJS.ErrnoException) => {
        if (exited !== null) return;
        settle({ error: new TaskNotRunnableError(task.dirName, `could not start ${path.basename(interpreter)}: ${error.code ?? error.message}`) });
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) {
          const pid = child.pid;
          const guardedHere = guarded === null ? this.guardian.guard(pid, options.deadline?.at) : () => undefined;
          // A renewal may have moved the deadline while the guardian was starting the process.
          if (guarded !== null && options.deadline !== undefined) this.guardian.killAt(pid, options.deadline.at);
          const unfollow = options.deadline?.follow((at) => this.guardian.killAt(pid, at)) ?? (() => undefined);
          unguard = () => {
            unfollow();
            guardedHere();
          };
          processes = new RunProcesses(runId, child.pid, older);
          processes.watch(this.settings.descendantPollMs);
          try {
            options.onSpawn?.(child.pid);
          } catch (error) {
            // Recording the pid only helps recovery after a crash; it must not take the run down
            // or skip the timeout below.
            process.emitWarning(`could not record the process of task ${task.dirName}: ${(error as Error).message}`);
          }
        }
        const seconds = task.timeoutSeconds ?? this.settings.defaultTimeoutSeconds;
        timers.push(
          setTimeout(() => {
            timedOut = true;
            stop();
          }, seconds * 1000),
        );
        if (options.signal?.aborted === true) onAbort();
        else options.signal?.addEventListener('abort', onAbort, { once: true });
      });
      for (const [stream, sink, name] of [
        [child.stdout, stdout, 'stdout'],
        [child.stderr, stderr, 'stderr'],
      ] as const) {
        const decoder = new StringDecoder('utf8');
        stream.on('data', (data: Buffer) => {
          const text = sink.add(decoder.write(data));
          if (text !== '') options.onOutput?.({ stream: name, text });
        });
        stream.on('end', () => {
          const text = sink.add(decoder.end());
          if (text !== '') options.onOutput?.({ stream: name, text });
        });
      }

      child.once('exit', (code: number | null, signal: NodeJS.Signals | null) => {
        exited = { code, signal };
        unguard();
        onExit?.();
        // The run ends with its main process: whatever it left running goes too, in its group or not.
        if (processes !== null) cleared = processes.killAll().catch((error: Error) => process.emitWarning(`stopping what task ${task.dirName} left running: ${error.message}`));
        else if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
        // A grandchild that left the group may hold the pipes open; do not wait for it forever.
        timers.push(
          setTimeout(() => {
            child.stdout.destroy();
            child.stderr.destroy();
            finish();
          }, 1000),
        );
      });
      child.once('close', finish);
    });
  }
}

/** Keeps text up to a byte budget and remembers whether anything was dropped. */
class BoundedText {
  text = '';
  truncated = false;
  private bytes = 0;

  constructor(private readonly limit: number) {}

  /** Adds decoded text and returns the part that was kept. */
  add(text: string): string {
    if (text === '' || this.truncated) return '';
    const size = Buffer.byteLength(text);
    if (this.bytes + size <= this.limit) {
      this.bytes += size;
      this.text += text;
      return text;
    }
    // Cut at the budget; a character split in two is dropped rather than shown broken.
    const kept = Buffer.from(text).subarray(0, this.limit - this.bytes).toString('utf8').replace(/\uFFFD+$/, '');
    this.bytes = this.limit;
    this.text += kept;
    this.truncated = true;
    return kept;
  }
}
