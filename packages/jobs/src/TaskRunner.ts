import { spawn as untrackedSpawn } from 'node:child_process';
import { refuseHeld, token } from '@loadout/kernel';
import { DocumentRefusedError, realpathInside, spoilsReads, trackedFs } from '@loadout/files';
import { describeRunnableExtensions, type TaskRecord, taskInterpreterOf } from '@loadout/tasks';
import { inject, injectable } from 'tsyringe';
import { OUTPUT_DIR_VARIABLE } from './JobOutputFolders.js';
import { ProcessGuardian, type TaskProcess } from './ProcessGuardian.js';
import type { RunDeadline } from './RunDeadline.js';
import {
  makeScratchFolder,
  newRunId,
  processesBefore,
  removeEmptyScratchFolder,
  removeScratchFolder,
  RUN_ID_VARIABLE,
} from './runProcesses.js';
import { TaskRun } from './TaskRun.js';
import { TaskNotRunnableError } from './JobErrors.js';

/** Starts a process; a ReadLog cannot follow what it reads, so it spoils the current one. */
const spawn = spoilsReads('a child process', untrackedSpawn);

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
  /** The folder the task may write files for its caller into, told to it as `LOADOUT_OUTPUT_DIR` (see `JobOutputFolders`). */
  readonly outputDir?: string;
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
    if (error instanceof DocumentRefusedError)
      throw new TaskNotRunnableError(task.dirName, `implementation "${task.implementation}" leads outside the task folder`);
    throw error;
  }
  if (real === null || !trackedFs.statSync(real).isFile()) {
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
    if (options.outputDir !== undefined) env[OUTPUT_DIR_VARIABLE] = options.outputDir;
    env[RUN_ID_VARIABLE] = runId;

    const input = JSON.stringify(options.input === undefined ? {} : options.input);
    // Taken before the spawn: nothing in it can be the run's, so the run's end need not read it.
    const older = processesBefore();
    // Its own process group (and session), so a timeout or a stop reaches everything it started;
    // started by the guardian once it is up, which lists the group itself.
    const guarded = this.guardian.spawn({ file: interpreter, args: [file], cwd, env, input }, options.deadline?.at);
    const child: TaskProcess = guarded ?? this.spawnHere(interpreter, file, cwd, env, input);
    return new TaskRun(child, {
      task,
      interpreter,
      runId,
      older,
      settings: this.settings,
      guardian: this.guardian,
      startedByGuardian: guarded !== null,
      options,
      onExit,
    }).result();
  }
}
