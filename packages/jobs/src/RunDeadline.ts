/**
 * Milliseconds on the system's monotonic clock (`CLOCK_MONOTONIC`, which `process.hrtime` reads):
 * the same in every process of the host and never set back, so a deadline taken here means the
 * same moment in the process guardian.
 */
export function monotonicNow(): number {
  return Number(process.hrtime.bigint() / 1_000_000n);
}

/**
 * The moment (see {@link monotonicNow}) by which a run must have been stopped unless its lease was
 * renewed meanwhile: a job's lease as the process that runs it sees it. It only moves later, as
 * renewals succeed; whoever follows it (the guardian that kills the task's group, the attempt that
 * gives the job up) hears each move.
 */
export class RunDeadline {
  private current: number;
  private readonly listeners = new Set<(at: number) => void>();

  constructor(at: number) {
    this.current = at;
  }

  get at(): number {
    return this.current;
  }

  get passed(): boolean {
    return monotonicNow() >= this.current;
  }

  /** Moves the deadline to `at` when that is later; an earlier moment changes nothing. */
  extend(at: number): void {
    if (at <= this.current) return;
    this.current = at;
    for (const listener of this.listeners) listener(at);
  }

  /** Calls `listener` with each later deadline until the returned function is called. */
  follow(listener: (at: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
