import { type ChildProcess, spawn as untrackedSpawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { injectable } from 'tsyringe';
import { signalGroup } from './processGroup.js';
import { spoilsReads } from '@loadout/files';

/** Starts a process; a ReadLog cannot follow what it reads, so it spoils the current one. */
const spawn = spoilsReads('a child process', untrackedSpawn);

/**
 * The guardian's program (see the file for what it reads and says), beside this module: in the
 * sources, in the package's build, and for the bundled command line, whose build rewrites this
 * module's `import.meta.url` to its place in the package's build.
 */
const GUARDIAN_PROGRAM = fileURLToPath(new URL('./guardianProcess.mjs', import.meta.url));

/** A process to start: a program, its arguments, its folder and whole environment, and what it reads on stdin. */
export interface ProcessRequest {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly input: string;
}

/**
 * What a runner needs of a task's process, whichever process started it: its pid once it exists,
 * its output, and the events of a `ChildProcess` (`spawn`, `error`, `exit`, `close`).
 */
export interface TaskProcess extends EventEmitter {
  readonly pid?: number | undefined;
  readonly stdout: Readable;
  readonly stderr: Readable;
}

/** What the guardian says about a process it started. */
interface GuardianMessage {
  readonly ready?: true;
  readonly id?: number;
  readonly pid?: number;
  readonly error?: string;
  readonly stream?: 1 | 2;
  readonly data?: string;
  readonly end?: 1 | 2;
  readonly exit?: [number | null, NodeJS.Signals | null];
  readonly close?: true;
}

/** A process the guardian started, as this process sees it: its output and events come as the guardian tells them. */
class GuardedProcess extends EventEmitter implements TaskProcess {
  pid: number | undefined;
  exited = false;
  readonly stdout: Readable;
  readonly stderr: Readable;

  constructor(letGo: () => void) {
    super();
    // Destroying either stream (the runner gives up on a grandchild holding them) lets go of both in the guardian.
    const stream = (): Readable =>
      new Readable({ read: () => undefined, autoDestroy: false, destroy: (error, done) => (letGo(), done(error)) });
    this.stdout = stream();
    this.stderr = stream();
  }

  /** Emits `close` once both streams have ended, as a `ChildProcess` does. */
  closed(): void {
    const open = [this.stdout, this.stderr].filter((stream) => !stream.readableEnded && !stream.destroyed);
    let left = open.length;
    if (left === 0) {
      this.emit('close');
      return;
    }
    for (const stream of open) {
      stream.once('end', () => {
        left -= 1;
        if (left === 0) this.emit('close');
      });
      stream.push(null);
    }
  }
}

/** One guardian process, what it has started that has not closed yet, and what it has said so far. */
interface Guardian {
  readonly process: ChildProcess;
  ready: boolean;
  readonly started: Map<number, GuardedProcess>;
  said: string;
}

/**
 * Makes the task processes this process starts die with it, and starts them cheaply. A task runs
 * in its own process group (so a stop reaches all of it), which also means it would outlive a
 * server killed with SIGKILL and keep running while another server, after the lease, runs the
 * same job again. One small guardian process per process holds the list of live groups on a pipe;
 * when the pipe closes because its owner died, it kills them. Started on the first task, never
 * kept alive for itself.
 *
 * Once the guardian is up, it also starts the tasks' processes ({@link spawn}): starting a process
 * copies the starting process's page tables (Node's `spawn` forks), which costs a few milliseconds
 * more from a server holding a large workspace than from the guardian, whose memory stays small.
 * Until it is up (the first task) the caller starts the process itself and lists it ({@link guard}).
 */
@injectable()
export class ProcessGuardian {
  private guardian: Guardian | null = null;
  private nextId = 1;

  /**
   * Lists the group `pgid` until the returned function is called (when the task has ended); with
   * `deadline`, the group is killed at that moment unless {@link killAt} moves it.
   */
  guard(pgid: number, deadline?: number): () => void {
    const guardian = this.running().process;
    guardian.stdin?.write(`+${pgid}\n${deadline === undefined ? '' : `d${pgid} ${deadline}\n`}`);
    return () => {
      if (guardian.exitCode === null && guardian.stdin?.writable === true) guardian.stdin.write(`-${pgid}\n`);
    };
  }

  /**
   * Has the guardian start `request` in a process group of its own (a new session, as `detached`),
   * listed for as long as it runs; null while the guardian is not up yet, and the caller starts it.
   * Should the guardian die before the process ends, its group is stopped and the process reported
   * ended by SIGKILL. With `deadline`, the group is killed at that moment unless {@link killAt}
   * moves it.
   */
  spawn(request: ProcessRequest, deadline?: number): TaskProcess | null {
    const guardian = this.running();
    const stdin = guardian.process.stdin;
    if (!guardian.ready || stdin?.writable !== true) return null;
    const id = this.nextId;
    this.nextId += 1;
    const child = new GuardedProcess(() => {
      if (!guardian.started.has(id)) return;
      forget(guardian, id);
      if (guardian.process.exitCode === null && stdin.writable) stdin.write(`x${id}\n`);
    });
    guardian.started.set(id, child);
    // While a process it started runs, its reports keep this process waiting for them.
    (guardian.process.stdout as unknown as { ref?: () => void } | null)?.ref?.();
    stdin.write(`s${JSON.stringify({ id, ...request, ...(deadline === undefined ? {} : { deadline }) })}\n`);
    return child;
  }

  /**
   * Moves the moment (see `monotonicNow`) at which the guardian kills the listed group `pgid`: a
   * job's lease was renewed. The guardian kills it then even if this process is frozen.
   */
  killAt(pgid: number, deadline: number): void {
    const stdin = this.guardian?.process.stdin;
    if (this.guardian?.process.exitCode === null && stdin?.writable === true) stdin.write(`d${pgid} ${deadline}\n`);
  }

  /** Resolves once the guardian is up and starts the tasks' processes. */
  whenReady(): Promise<void> {
    const guardian = this.running();
    return new Promise((done) => {
      const look = (): void => {
        if (guardian.ready) done();
        else setTimeout(look, 5);
      };
      look();
    });
  }

  private running(): Guardian {
    if (this.guardian !== null && this.guardian.process.exitCode === null) return this.guardian;
    const child = spawn(process.execPath, [GUARDIAN_PROGRAM], { stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    const guardian: Guardian = { process: child, ready: false, started: new Map(), said: '' };
    child.on('error', () => undefined);
    child.stdin?.on('error', () => undefined);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (text: string) => read(guardian, text));
    child.stdout?.on('close', () => lost(guardian));
    // Neither the guardian nor its pipes keep this process alive.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
    this.guardian = guardian;
    return guardian;
  }
}

function read(guardian: Guardian, text: string): void {
  guardian.said += text;
  for (let end = guardian.said.indexOf('\n'); end >= 0; end = guardian.said.indexOf('\n')) {
    const line = guardian.said.slice(0, end);
    guardian.said = guardian.said.slice(end + 1);
    told(guardian, JSON.parse(line) as GuardianMessage);
  }
}

function told(guardian: Guardian, message: GuardianMessage): void {
  if (message.ready === true) {
    guardian.ready = true;
    return;
  }
  const id = message.id ?? 0;
  const child = guardian.started.get(id);
  if (child === undefined) return;
  if (message.pid !== undefined) {
    child.pid = message.pid;
    child.emit('spawn');
  } else if (message.error !== undefined) {
    forget(guardian, id);
    child.emit('error', Object.assign(new Error(`spawn ${message.error}`), { code: message.error }));
  } else if (message.data !== undefined) {
    (message.stream === 1 ? child.stdout : child.stderr).push(Buffer.from(message.data, 'base64'));
  } else if (message.end !== undefined) {
    (message.end === 1 ? child.stdout : child.stderr).push(null);
  } else if (message.exit !== undefined) {
    child.exited = true;
    child.emit('exit', message.exit[0], message.exit[1]);
  } else if (message.close === true) {
    forget(guardian, id);
    child.closed();
  }
}

/** The guardian died: what it started is stopped here, and reported ended by SIGKILL. */
function lost(guardian: Guardian): void {
  guardian.ready = false;
  const orphans = [...guardian.started.values()];
  guardian.started.clear();
  for (const child of orphans) {
    if (child.pid === undefined) {
      child.emit('error', Object.assign(new Error('spawn: the guardian stopped'), { code: 'the guardian stopped' }));
      continue;
    }
    signalGroup(child.pid, 'SIGKILL');
    if (!child.exited) {
      child.exited = true;
      child.emit('exit', null, 'SIGKILL');
    }
    child.closed();
  }
}

/** Lets go of a process the guardian started; with none left, its reports keep this process alive no longer. */
function forget(guardian: Guardian, id: number): void {
  if (guardian.started.delete(id) && guardian.started.size === 0)
    (guardian.process.stdout as unknown as { unref?: () => void } | null)?.unref?.();
}
