import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isProcessAlive, processStartTime, trackedFs } from '@loadout/files';
import { signalGroup } from './processGroup.js';

/**
 * The variable every task process gets: the run's id. A descendant inherits it through any number
 * of forks, `setsid` and re-parenting, so the runner finds what a run started by it, unless the
 * descendant starts a program with an environment of its own making.
 */
export const RUN_ID_VARIABLE = 'LOADOUT_RUN_ID';

/** A run's scratch folder (its working folder when it has no project) is `<tmp>/loadout-run-<run id>`. */
const SCRATCH_PREFIX = 'loadout-run-';

/** `<owner pid>-<owner start time>-<random>`: a run names the process that started it. */
const RUN_ID = /^(\d+)-(\d+)-[0-9a-f]{12}$/;

/**
 * A new run id, owned by this process. The owner's pid and start time say later whether the
 * process that started the run is still there: when it is not, whatever the run left is abandoned.
 */
export function newRunId(): string {
  ownStart ??= processStartTime(process.pid) ?? '0';
  return `${process.pid}-${ownStart}-${randomBytes(6).toString('hex')}`;
}

/** This process's start time, read once: it does not change while the process lives. */
let ownStart: string | undefined;

/** Whether the process that started the run `runId` is gone (a malformed id counts as not gone). */
export function runOwnerIsGone(runId: string): boolean {
  const match = RUN_ID.exec(runId);
  if (match === null) return false;
  const pid = Number(match[1]);
  if (!isProcessAlive(pid)) return true;
  const start = processStartTime(pid);
  return match[2] !== '0' && start !== null && start !== match[2];
}

/** Makes the run's scratch folder, readable only by this user. */
export function makeScratchFolder(runId: string): string {
  const dir = path.join(os.tmpdir(), `${SCRATCH_PREFIX}${runId}`);
  trackedFs.mkdirSync(dir, { mode: 0o700 });
  return dir;
}

/**
 * Removes a run's scratch folder and whatever the task left in it. Most tasks leave it empty, and
 * one `rmdir` is all that takes; a folder with something in it is removed whole.
 */
export function removeScratchFolder(dir: string): void {
  try {
    trackedFs.rmdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    trackedFs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Removes a run's scratch folder if it is empty, on the thread pool: begun as the task's main
 * process exits, so the `rmdir` runs beside the run's end scan rather than after it. Resolves to
 * whether the folder is gone. A folder with something in it is left for
 * {@link removeScratchFolder} once the scan has stopped what the run left running; a descendant
 * still alive meanwhile cannot put anything into a folder that was removed.
 */
export function removeEmptyScratchFolder(dir: string): Promise<boolean> {
  return fs.promises.rmdir(dir).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
  );
}

interface SeenProcess {
  readonly pid: number;
  readonly start: string | null;
}

/**
 * Every process of one run: its process group, the descendants seen while it ran, and every
 * process that carries its run id. A descendant escapes only when it leaves the group (`setsid`),
 * starts a program without the run id in its environment, and is orphaned before the runner
 * looks at the run's process tree again (every `pollMs`).
 */
export class RunProcesses {
  private readonly seen = new Map<number, SeenProcess>();
  private timer: NodeJS.Timeout | null = null;

  /**
   * @param older processes that were alive before the run's leader was started
   *   ({@link processesBefore}, taken before the spawn): none of them can carry the run id, so the
   *   run's end does not read their environments
   */
  constructor(
    readonly runId: string,
    private readonly leader: number,
    private readonly older: ProcessSnapshot = NO_PROCESSES,
  ) {}

  /** Looks at the run's process tree now and every `pollMs` until {@link stopWatching}. */
  watch(pollMs: number): void {
    this.look();
    this.timer = setInterval(() => this.look(), pollMs);
    this.timer.unref();
  }

  stopWatching(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** Records every live descendant of the leader and of the descendants seen before. */
  look(): void {
    const pending = [this.leader, ...[...this.seen.values()].filter((known) => isSame(known)).map((known) => known.pid)];
    const visited = new Set<number>();
    for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
      if (visited.has(pid)) continue;
      visited.add(pid);
      for (const child of childrenOf(pid)) {
        if (!this.seen.has(child)) this.seen.set(child, { pid: child, start: processStartTime(child) });
        pending.push(child);
      }
    }
  }

  /**
   * Stops every process of the run with SIGKILL: the group, the descendants seen, and whatever
   * carries the run id, until none is left (a process that forks meanwhile is found the next
   * round). Returns how many processes outside the group were stopped.
   */
  async killAll(): Promise<number> {
    this.stopWatching();
    signalGroup(this.leader, 'SIGKILL');
    let stopped = 0;
    for (let round = 0; round < 20; round += 1) {
      this.look();
      const victims = new Set<number>();
      for (const known of this.seen.values()) if (isSame(known)) victims.add(known.pid);
      for (const pid of processesOfRun(this.runId, this.older)) victims.add(pid);
      if (victims.size === 0) break;
      for (const pid of victims) {
        try {
          process.kill(pid, 'SIGKILL');
          stopped += 1;
        } catch {
          // gone already
        }
      }
      await new Promise((done) => setTimeout(done, 10));
    }
    return stopped;
  }
}

/**
 * Stops every process and removes every scratch folder of runs whose owner is gone (a server or
 * `loadout tasks run` killed with SIGKILL). Run when a server starts, after the jobs it left were
 * settled. Folders of other users and of live owners are left alone.
 */
export async function sweepAbandonedRuns(): Promise<{ processes: number; folders: string[] }> {
  let processes = 0;
  for (const [runId, pids] of processesByRun()) {
    if (!runOwnerIsGone(runId)) continue;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
        processes += 1;
      } catch {
        // gone already
      }
    }
  }
  const folders: string[] = [];
  const tmp = os.tmpdir();
  let names: string[];
  try {
    names = trackedFs.readdirSync(tmp);
  } catch {
    names = [];
  }
  for (const name of names) {
    if (!name.startsWith(SCRATCH_PREFIX) || !runOwnerIsGone(name.slice(SCRATCH_PREFIX.length))) continue;
    const dir = path.join(tmp, name);
    try {
      const stat = trackedFs.lstatSync(dir);
      if (!stat.isDirectory() || stat.uid !== process.getuid?.()) continue;
      trackedFs.rmSync(dir, { recursive: true, force: true });
      folders.push(dir);
    } catch {
      // another sweep took it, or it cannot be removed: it is not ours to insist on
    }
  }
  return { processes, folders };
}

function isSame(known: SeenProcess): boolean {
  if (!isProcessAlive(known.pid)) return false;
  return known.start === null || processStartTime(known.pid) === known.start;
}

/** The children of `pid` (every thread's), from `/proc`; none where `/proc` does not say. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  let threads: string[];
  try {
    threads = trackedFs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return children;
  }
  for (const thread of threads) {
    let text: string;
    try {
      text = trackedFs.readFileSync(`/proc/${pid}/task/${thread}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const item of text.split(' ')) if (item.trim() !== '') children.push(Number(item));
  }
  return children;
}

/**
 * Processes by pid, each with the inode number of its `/proc/<pid>` folder: a process that dies
 * takes its inode with it, so a pid used again by a later process shows another number.
 */
export type ProcessSnapshot = ReadonlyMap<number, number>;

const NO_PROCESSES: ProcessSnapshot = new Map();
/** The newest snapshot, taken at the end of a run's scan (or by the first {@link processesBefore}). */
let latestSnapshot: ProcessSnapshot | null = null;

/**
 * Processes that are alive now or were alive earlier: none of them descends from a process
 * started after this call. The newest snapshot any run's end took, or one taken now when there is
 * none yet (a listing of `/proc` and a stat of each process's folder).
 */
export function processesBefore(): ProcessSnapshot {
  latestSnapshot ??= snapshotProcesses();
  return latestSnapshot;
}

function snapshotProcesses(): Map<number, number> {
  const snapshot = new Map<number, number>();
  for (const pid of listProcesses()) {
    const stats = trackedFs.statSync(`/proc/${pid}`, { throwIfNoEntry: false });
    if (stats !== undefined) snapshot.set(pid, stats.ino);
  }
  return snapshot;
}

/**
 * The live processes of this user that carry the run id `runId`. A process in `older` whose
 * `/proc` folder has the same inode number is that same older process, started before the run,
 * and is passed over without reading its environment, which is most of what a scan costs; every
 * other process of this user is read. The listing becomes the newest snapshot.
 */
function processesOfRun(runId: string, older: ProcessSnapshot): number[] {
  const found: number[] = [];
  const snapshot = new Map<number, number>();
  const uid = process.getuid?.();
  for (const pid of listProcesses()) {
    const stats = trackedFs.statSync(`/proc/${pid}`, { throwIfNoEntry: false });
    if (stats === undefined) continue;
    snapshot.set(pid, stats.ino);
    if (older.get(pid) === stats.ino || (uid !== undefined && stats.uid !== uid)) continue;
    if (runIdOf(pid) === runId && isProcessAlive(pid)) found.push(pid);
  }
  latestSnapshot = snapshot;
  return found;
}

/** The pids `/proc` lists, but this process's own. */
function listProcesses(): number[] {
  let entries: string[];
  try {
    entries = trackedFs.readdirSync('/proc');
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 0x30 || first > 0x39 || !/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid !== process.pid) pids.push(pid);
  }
  return pids;
}

/** Every live process of this user that carries a run id, by run id (the sweep of abandoned runs). */
function processesByRun(): Map<string, number[]> {
  const byRun = new Map<string, number[]>();
  const uid = process.getuid?.();
  for (const pid of listProcesses()) {
    if (uid !== undefined && trackedFs.statSync(`/proc/${pid}`, { throwIfNoEntry: false })?.uid !== uid) continue;
    const runId = runIdOf(pid);
    if (runId === null || !isProcessAlive(pid)) continue;
    const pids = byRun.get(runId);
    if (pids === undefined) byRun.set(runId, [pid]);
    else pids.push(pid);
  }
  return byRun;
}

// An environment is read into one buffer and searched as bytes; only a run id found is decoded.
const RUN_ID_ENTRY = Buffer.from(`${RUN_ID_VARIABLE}=`, 'latin1');
const NUL = 0;
/** Where environments are read; grown when one does not fit. */
let environ = Buffer.allocUnsafe(64 * 1024);

/** The run id in the environment of process `pid`, when it carries one. */
function runIdOf(pid: number): string | null {
  const length = readEnviron(pid);
  if (length === null) return null;
  const text = environ.subarray(0, length);
  // The variable is at the start or right after a NUL; a value that merely contains the name is not it.
  let at = text.indexOf(RUN_ID_ENTRY);
  while (at > 0 && text[at - 1] !== NUL) at = text.indexOf(RUN_ID_ENTRY, at + 1);
  if (at === -1) return null;
  const start = at + RUN_ID_ENTRY.length;
  const end = text.indexOf(NUL, start);
  return text.toString('latin1', start, end === -1 ? length : end);
}

/** Reads the environment of process `pid` into {@link environ}; its length, or null when it cannot be read. */
function readEnviron(pid: number): number | null {
  let fd: number;
  try {
    // Another user's process refuses this open (reading an environment needs the right to trace it).
    fd = trackedFs.openSync(`/proc/${pid}/environ`, 'r');
  } catch {
    return null;
  }
  try {
    let length = 0;
    for (;;) {
      if (length === environ.length) {
        const bigger = Buffer.allocUnsafe(environ.length * 2);
        environ.copy(bigger, 0, 0, length);
        environ = bigger;
      }
      const read = fs.readSync(fd, environ, length, environ.length - length, null);
      if (read === 0) return length;
      length += read;
    }
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}
