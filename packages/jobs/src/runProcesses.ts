import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isProcessAlive, processStartTime } from '@loadout/kernel';
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
  return `${process.pid}-${processStartTime(process.pid) ?? 0}-${randomBytes(6).toString('hex')}`;
}

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
  fs.mkdirSync(dir, { mode: 0o700 });
  return dir;
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

  constructor(
    readonly runId: string,
    private readonly leader: number,
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
      for (const pid of processesOfRun(this.runId)) victims.add(pid);
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
    names = fs.readdirSync(tmp);
  } catch {
    names = [];
  }
  for (const name of names) {
    if (!name.startsWith(SCRATCH_PREFIX) || !runOwnerIsGone(name.slice(SCRATCH_PREFIX.length))) continue;
    const dir = path.join(tmp, name);
    try {
      const stat = fs.lstatSync(dir);
      if (!stat.isDirectory() || stat.uid !== process.getuid?.()) continue;
      fs.rmSync(dir, { recursive: true, force: true });
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
    threads = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return children;
  }
  for (const thread of threads) {
    let text: string;
    try {
      text = fs.readFileSync(`/proc/${pid}/task/${thread}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const item of text.split(' ')) if (item.trim() !== '') children.push(Number(item));
  }
  return children;
}

/** The live processes of this user that carry the run id `runId`. */
function processesOfRun(runId: string): number[] {
  return processesByRun().get(runId) ?? [];
}

/** Every live process of this user that carries a run id, by run id. */
function processesByRun(): Map<string, number[]> {
  const byRun = new Map<string, number[]>();
  const uid = process.getuid?.();
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return byRun;
  }
  const prefix = `${RUN_ID_VARIABLE}=`;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let environ: string;
    try {
      if (uid !== undefined && fs.statSync(`/proc/${entry}`).uid !== uid) continue;
      environ = fs.readFileSync(`/proc/${entry}/environ`, 'latin1');
    } catch {
      continue;
    }
    const at = environ.startsWith(prefix) ? 0 : environ.indexOf(`\0${prefix}`);
    if (at === -1) continue;
    const start = at === 0 ? prefix.length : at + 1 + prefix.length;
    const end = environ.indexOf('\0', start);
    const runId = environ.slice(start, end === -1 ? undefined : end);
    if (!isProcessAlive(pid)) continue;
    byRun.set(runId, [...(byRun.get(runId) ?? []), pid]);
  }
  return byRun;
}
