import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { TaskRecord } from '@loadout/tasks';
import { TaskNotRunnableError } from './JobErrors.js';
import type { ProcessGuardian, TaskProcess } from './ProcessGuardian.js';
import { signalGroup } from './processGroup.js';
import { type ProcessSnapshot, RunProcesses } from './runProcesses.js';
import type { TaskRunnerSettings, TaskRunOptions, TaskRunResult } from './TaskRunner.js';

/** Why the runner stopped a task before it ended by itself; both can happen to one run. */
type StopReason = 'timeout' | 'abort';

/**
 * Where a run is. `starting`: the process is asked for. `running`: it exists; a stop sends SIGTERM,
 * then SIGKILL after the grace. `ending`: its main process exited; what it left is being stopped and
 * its pipes drained (for at most {@link PIPES_GRACE_MS}). `settled`: the caller has its answer.
 */
type RunState =
  | { readonly phase: 'starting' }
  | { readonly phase: 'running'; readonly pid: number | undefined; readonly processes: RunProcesses | null; readonly unguard: () => void }
  | { readonly phase: 'ending'; readonly exit: ExitStatus; readonly cleared: Promise<unknown> }
  | { readonly phase: 'settled' };

interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** How long the run waits for the pipes after its main process exited: a grandchild that left the group may hold them open. */
const PIPES_GRACE_MS = 1000;

/** What a {@link TaskRun} needs besides the process: who started it and how, and what the run is. */
export interface TaskRunContext {
  readonly task: TaskRecord;
  readonly interpreter: string;
  readonly runId: string;
  /** The processes alive before the spawn (see `processesBefore`). */
  readonly older: ProcessSnapshot;
  readonly settings: TaskRunnerSettings;
  readonly guardian: ProcessGuardian;
  /** Whether the guardian started the process (and lists its group itself). */
  readonly startedByGuardian: boolean;
  readonly options: TaskRunOptions;
  /** Called as the main process exits, before the end scan. */
  readonly onExit?: (() => void) | undefined;
}

/**
 * One task process from its spawn to the runner's answer, as a small state machine: each event of
 * the process (`spawn`, `error`, `exit`, `close`) and of the run (its timeout, the caller's abort,
 * the grace timers) is a method that looks at the {@link RunState} it finds and moves it on.
 */
export class TaskRun {
  private state: RunState = { phase: 'starting' };
  private readonly stoppedBy = new Set<StopReason>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly stdout: BoundedText;
  private readonly stderr: BoundedText;
  private readonly started = Date.now();
  private readonly onAbort = (): void => this.stop('abort');
  private resolve: (result: TaskRunResult) => void = () => undefined;
  private reject: (error: Error) => void = () => undefined;

  constructor(
    private readonly child: TaskProcess,
    private readonly context: TaskRunContext,
  ) {
    this.stdout = new BoundedText(context.settings.maxStdoutBytes);
    this.stderr = new BoundedText(context.settings.maxStderrBytes);
  }

  /** Follows the process to its end. */
  result(): Promise<TaskRunResult> {
    const answer = new Promise<TaskRunResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    const { child } = this;
    child.once('error', (error: NodeJS.ErrnoException) => this.failed(error));
    child.once('spawn', () => this.spawned());
    this.collect(child.stdout, this.stdout, 'stdout');
    this.collect(child.stderr, this.stderr, 'stderr');
    child.once('exit', (code: number | null, signal: NodeJS.Signals | null) => this.exited({ code, signal }));
    child.once('close', () => this.drained());
    return answer;
  }

  /** The process could not be started (or the guardian could not start it). */
  private failed(error: NodeJS.ErrnoException): void {
    if (this.state.phase === 'ending' || this.state.phase === 'settled') return;
    if (this.state.phase === 'running') this.state.unguard();
    const { task, interpreter } = this.context;
    this.settle({
      error: new TaskNotRunnableError(task.dirName, `could not start ${path.basename(interpreter)}: ${error.code ?? error.message}`),
    });
  }

  private spawned(): void {
    if (this.state.phase !== 'starting') return;
    const { options, settings, task } = this.context;
    const pid = this.child.pid;
    let processes: RunProcesses | null = null;
    let unguard = (): void => undefined;
    if (pid !== undefined) {
      unguard = this.guard(pid);
      processes = new RunProcesses(this.context.runId, pid, this.context.older);
      processes.watch(settings.descendantPollMs);
    }
    this.state = { phase: 'running', pid, processes, unguard };
    if (pid !== undefined) {
      try {
        options.onSpawn?.(pid);
      } catch (error) {
        // Recording the pid only helps recovery after a crash; it must not take the run down
        // or skip the timeout below.
        process.emitWarning(`could not record the process of task ${task.dirName}: ${(error as Error).message}`);
      }
    }
    this.after((task.timeoutSeconds ?? settings.defaultTimeoutSeconds) * 1000, () => this.stop('timeout'));
    if (options.signal?.aborted === true) this.stop('abort');
    else options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /**
   * Has the guardian list the group (unless it started the process, and lists it already) and
   * follow the run's deadline; returns the undoing of both.
   */
  private guard(pid: number): () => void {
    const { guardian, options, startedByGuardian } = this.context;
    const deadline = options.deadline;
    const listed = startedByGuardian ? () => undefined : guardian.guard(pid, deadline?.at);
    // A renewal may have moved the deadline while the guardian was starting the process.
    if (startedByGuardian && deadline !== undefined) guardian.killAt(pid, deadline.at);
    const unfollow = deadline?.follow((at) => guardian.killAt(pid, at)) ?? (() => undefined);
    return () => {
      unfollow();
      listed();
    };
  }

  /** The timeout or the caller's abort: SIGTERM to the group, SIGKILL after the grace. */
  private stop(reason: StopReason): void {
    this.stoppedBy.add(reason);
    const state = this.state;
    if (state.phase !== 'running' || state.pid === undefined) return;
    const pid = state.pid;
    signalGroup(pid, 'SIGTERM');
    this.after(this.context.settings.killGraceMs, () => signalGroup(pid, 'SIGKILL'));
  }

  /** The main process exited: the run ends with it, and whatever it left running goes too, in its group or not. */
  private exited(exit: ExitStatus): void {
    const state = this.state;
    if (state.phase !== 'running' && state.phase !== 'starting') return;
    let cleared: Promise<unknown> = Promise.resolve();
    if (state.phase === 'running') {
      state.unguard();
      this.context.onExit?.();
      if (state.processes !== null) {
        cleared = state.processes
          .killAll()
          .catch((error: Error) => process.emitWarning(`stopping what task ${this.context.task.dirName} left running: ${error.message}`));
      } else if (state.pid !== undefined) signalGroup(state.pid, 'SIGKILL');
    } else this.context.onExit?.();
    this.state = { phase: 'ending', exit, cleared };
    this.after(PIPES_GRACE_MS, () => {
      this.child.stdout.destroy();
      this.child.stderr.destroy();
      this.drained();
    });
  }

  /** Both pipes closed (or their grace ran out): answer once what the main process left is stopped. */
  private drained(): void {
    const state = this.state;
    if (state.phase === 'settled') return;
    const exit = state.phase === 'ending' ? state.exit : { code: null, signal: null };
    const cleared = state.phase === 'ending' ? state.cleared : Promise.resolve();
    void cleared.then(() => this.settle({ result: this.report(exit) }));
  }

  private report(exit: ExitStatus): TaskRunResult {
    const timedOut = this.stoppedBy.has('timeout');
    const interrupted = this.stoppedBy.has('abort');
    return {
      succeeded: exit.code === 0 && !timedOut && !interrupted,
      exitCode: exit.code,
      signal: exit.signal,
      timedOut,
      interrupted,
      stdout: this.stdout.text,
      stderr: this.stderr.text,
      truncated: this.stdout.truncated || this.stderr.truncated,
      durationMs: Date.now() - this.started,
    };
  }

  private settle(outcome: { error: Error } | { result: TaskRunResult }): void {
    if (this.state.phase === 'settled') return;
    this.state = { phase: 'settled' };
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.context.options.signal?.removeEventListener('abort', this.onAbort);
    if ('error' in outcome) this.reject(outcome.error);
    else this.resolve(outcome.result);
  }

  /** Runs `then` after `ms` unless the run settles first. */
  private after(ms: number, then: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      then();
    }, ms);
    this.timers.add(timer);
  }

  private collect(stream: TaskProcess['stdout'], sink: BoundedText, name: 'stdout' | 'stderr'): void {
    const decoder = new StringDecoder('utf8');
    const onOutput = this.context.options.onOutput;
    stream.on('data', (data: Buffer) => {
      const text = sink.add(decoder.write(data));
      if (text !== '') onOutput?.({ stream: name, text });
    });
    stream.on('end', () => {
      const text = sink.add(decoder.end());
      if (text !== '') onOutput?.({ stream: name, text });
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
    const kept = Buffer.from(text)
      .subarray(0, this.limit - this.bytes)
      .toString('utf8')
      .replace(/\uFFFD+$/, '');
    this.bytes = this.limit;
    this.text += kept;
    this.truncated = true;
    return kept;
  }
}
