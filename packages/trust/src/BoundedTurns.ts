/**
 * Runs costly work a bounded number at a time, with a bounded line of callers waiting for a turn:
 * a caller past both is refused at once (`refuse()`), so neither the work nor the line can grow
 * with what others ask.
 */
export class BoundedTurns {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly atOnce: number,
    private readonly mayWait: number,
    private readonly refuse: () => Error,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.atOnce) {
      if (this.waiting.length >= this.mayWait) throw this.refuse();
      await new Promise<void>((turn) => this.waiting.push(turn));
    } else {
      this.running += 1;
    }
    try {
      return await work();
    } finally {
      // The turn passes straight to the next caller in line, so `running` stays counted for it.
      const next = this.waiting.shift();
      if (next === undefined) this.running -= 1;
      else next();
    }
  }
}
