import fs from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * Numbers per descriptor in a {@link SharedFstatRun}: 1 when it could be stat'ed (0
 * and nothing else when not), then inode, size, mode, mtime (ms), ctime (ms) and links.
 */
export const FSTAT_FIELDS = 7;

/** How long a check waits for the helper's part before it gives the helper up. */
const HELPER_TIMEOUT_MS = 2_000;

/**
 * The helper thread: `fstat`s the descriptors it is sent into the shared numbers, then says which
 * request it finished. Descriptors are the process's, so a thread can stat what another opened;
 * it opens and closes nothing, and reads nothing but the numbers `fstat` gives.
 */
const HELPER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
parentPort.on('message', ({ fds, numbers, offset, done, finishedAt, request }) => {
  let finished = -request;
  try {
  const into = new Float64Array(numbers);
  for (let i = 0; i < fds.length; i += 1) {
    const at = offset + i * ${FSTAT_FIELDS};
    try {
      const stats = fs.fstatSync(fds[i]);
      into[at] = 1;
      into[at + 1] = stats.ino;
      into[at + 2] = stats.size;
      into[at + 3] = stats.mode;
      into[at + 4] = stats.mtimeMs;
      into[at + 5] = stats.ctimeMs;
      into[at + 6] = stats.nlink;
    } catch {
      into[at] = 0;
    }
  }
  new Float64Array(finishedAt)[0] = performance.timeOrigin + performance.now();
  finished = request;
  } finally {
    // A part that failed says so (its number negated), so the check does not wait out the deadline.
    const flag = new Int32Array(done);
    Atomics.store(flag, 0, finished);
    Atomics.notify(flag, 0);
  }
});
parentPort.postMessage('ready');
`;

/**
 * One check's `fstat`s of many descriptors, shared with a helper thread ({@link SharedFstat.begin}).
 * The numbers of descriptor `i` are at `i * FSTAT_FIELDS`; {@link has} says whether they are there.
 */
export interface SharedFstatRun {
  readonly numbers: Float64Array;
  /**
   * Whether the numbers at `at` are in: at once for this thread's share; for the helper's, after
   * waiting for it to finish. False when the helper failed or took too long: that descriptor is
   * then the caller's to stat.
   */
  has(at: number): boolean;
  /** Whether the numbers at `at` are in already, without waiting. */
  hasNow(at: number): boolean;
  /** Waits until the helper is done with this run's descriptors (or given up): after it, closing one is safe. */
  finish(): void;
}

/**
 * `fstat` of many held descriptors, shared with one helper thread: the helper takes the last part
 * of the list while this thread stats the first, and this thread waits for the helper only when
 * it comes to a number of the helper's part, so whatever it does between (other checks of the
 * same pass) runs beside the helper. On two cores a check of 10,000 takes about half the time
 * (10–12.5 ms here alone). A check must answer before it returns (its caller is synchronous), so
 * this thread blocks in that wait — for {@link HELPER_TIMEOUT_MS} at most: a helper that does not
 * answer, fails or exits is given up for good, and every later {@link begin} answers null (the
 * caller stats by itself).
 *
 * The thread starts on the first call and is not used until it says it is ready (a call before
 * then answers null); it does not keep the process alive, and {@link close} ends it.
 */
export class SharedFstat {
  private worker: Worker | null = null;
  private ready = false;
  private givenUp = false;
  private requests = 0;
  /** The request the helper is working on, until this thread saw it finish; 0 when none. */
  private pending = 0;
  /** The last request this thread saw finished. */
  private finished = 0;
  private readonly done = new Int32Array(new SharedArrayBuffer(4));
  /** When the helper finished its last part (ms since the epoch, as `performance` counts them in any thread). */
  private readonly finishedAt = new Float64Array(new SharedArrayBuffer(8));
  /** This thread's part of the list, adapted after each check so that both threads finish together. */
  private share = FIRST_SHARE;
  private numbers = new Float64Array(new SharedArrayBuffer(0));

  /**
   * Starts the `fstat` of every descriptor of `fds`: the helper's part is sent, this thread's part
   * is stat'ed before this returns. Null when the helper is not (or no longer) there to share it.
   */
  begin(fds: readonly number[]): SharedFstatRun | null {
    if (!this.helperReady() || !this.settle()) return null;
    const worker = this.worker as Worker;
    const size = fds.length * FSTAT_FIELDS;
    // A new buffer while the helper may still write the old one is never needed: it finished (settle).
    if (this.numbers.length < size) this.numbers = new Float64Array(new SharedArrayBuffer(Math.max(size, this.numbers.length * 2) * 8));
    const numbers = this.numbers;
    const mine = Math.floor(fds.length * this.share);
    const request = (this.requests = (this.requests % 0x7fff_ffff) + 1);
    this.pending = request;
    const posted = performance.now();
    worker.postMessage({ fds: Int32Array.from(fds.slice(mine)), numbers: numbers.buffer, offset: mine * FSTAT_FIELDS, done: this.done.buffer, finishedAt: this.finishedAt.buffer, request });
    for (let i = 0; i < mine; i += 1) fstatInto(fds[i] as number, numbers, i * FSTAT_FIELDS);
    const mineDone = performance.now();
    const helperFrom = mine * FSTAT_FIELDS;
    return {
      numbers,
      has: (at) => {
        if (at < helperFrom) return true;
        if (this.pending === request) {
          // This thread has done all else it could: the time to here and the helper's tell the next split.
          const needed = performance.now();
          if (this.settle()) this.adapt(fds.length, mine, mineDone - posted, needed - mineDone, this.finishedAt[0] as number - (performance.timeOrigin + posted));
        }
        return this.finished === request;
      },
      hasNow: (at) => at < helperFrom || this.finished === request || (this.pending === request && Atomics.load(this.done, 0) === request),
      finish: () => {
        if (this.pending === request) this.settle();
      },
    };
  }

  /**
   * The next split, from this check's times: this thread stat'ed `mine` in `mineMs` and then did
   * `otherMs` of other work before it needed the helper's part, which took `helperMs` from the
   * moment it was sent. Both threads finish together when this thread takes m of n with
   * m·(its time per stat) + other = (n − m)·(the helper's); half of the way there each time.
   */
  private adapt(count: number, mine: number, mineMs: number, otherMs: number, helperMs: number): void {
    const theirs = count - mine;
    if (mine === 0 || theirs === 0 || !(mineMs > 0) || !(helperMs > 0)) return;
    const perMine = mineMs / mine;
    const perTheirs = helperMs / theirs;
    const balanced = (count * perTheirs - otherMs) / (perMine + perTheirs) / count;
    this.share = Math.min(MOST_SHARE, Math.max(LEAST_SHARE, (this.share + balanced) / 2));
  }

  /** Whether a {@link begin} now would share its work: starts the helper thread when it is not started. */
  available(): boolean {
    return this.helperReady();
  }

  /** Ends the helper thread; later calls answer null. */
  close(): void {
    this.giveUp();
  }

  /** Waits for the helper's pending request, if any; false when it did not finish in time (the helper is then given up). */
  private settle(): boolean {
    if (this.pending === 0) return true;
    const deadline = performance.now() + HELPER_TIMEOUT_MS;
    for (;;) {
      const finished = Atomics.load(this.done, 0);
      if (finished === this.pending) {
        this.finished = finished;
        this.pending = 0;
        return true;
      }
      const left = deadline - performance.now();
      if (finished === -this.pending || left <= 0 || this.givenUp) {
        this.giveUp();
        return false;
      }
      Atomics.wait(this.done, 0, finished, left);
    }
  }

  private helperReady(): boolean {
    if (this.givenUp) return false;
    if (this.worker === null) this.start();
    return this.ready;
  }

  private start(): void {
    try {
      const worker = new Worker(HELPER_SOURCE, { eval: true });
      worker.unref();
      worker.once('message', () => {
        if (this.worker === worker) this.ready = true;
      });
      worker.once('error', () => this.giveUp());
      worker.once('exit', () => this.giveUp());
      this.worker = worker;
    } catch {
      this.givenUp = true;
    }
  }

  private giveUp(): void {
    this.givenUp = true;
    this.ready = false;
    this.pending = 0;
    const worker = this.worker;
    this.worker = null;
    if (worker !== null) void worker.terminate();
  }
}

/** This thread's part of a shared `fstat` at first: a little under half, since the helper starts a message later. */
const FIRST_SHARE = 0.45;
/** Whatever the times say, each thread keeps some of the list. */
const LEAST_SHARE = 0.1;
const MOST_SHARE = 0.9;

/**
 * This thread's `fstat` of `fd` into `into` at `at` ({@link FSTAT_FIELDS} numbers), as the helper
 * writes them; written in place, so 10,000 of them allocate no array.
 */
export function fstatInto(fd: number, into: Float64Array, at: number): void {
  let stats: fs.Stats;
  try {
    stats = fs.fstatSync(fd);
  } catch {
    into[at] = 0;
    return;
  }
  // The same numbers in the same order as the helper writes them (its source above).
  into[at] = 1;
  into[at + 1] = stats.ino;
  into[at + 2] = stats.size;
  into[at + 3] = stats.mode;
  into[at + 4] = stats.mtimeMs;
  into[at + 5] = stats.ctimeMs;
  into[at + 6] = stats.nlink;
}
