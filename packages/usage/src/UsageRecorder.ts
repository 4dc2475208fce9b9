import { token } from '@loadout/kernel';
import { inject, injectable } from 'tsyringe';
import { type UsageEvent, UsageStore } from './UsageStore.js';

/** An event as a face reports it; the recorder stamps the time and the source. */
export type ServedUse = Omit<UsageEvent, 'at' | 'source'>;

/**
 * Where the faces that serve capabilities (MCP, job runs) report each use. `record` returns at
 * once and never throws: the request being served never waits on the ledger, and a ledger that
 * cannot be written never fails it. Events are written in batches.
 *
 * @example
 * recorder.record({ runtime: 'claude-code', project: null, kind: 'skill', name: 'pdf', server: null, event: 'invoked', session: 'c1' });
 */
export interface UsageRecorder {
  record(use: ServedUse): void;
  /** Writes what is waiting now; resolves once it is stored (or its failure logged). */
  flush(): Promise<void>;
}
export const UsageRecorder = token<UsageRecorder>('usage.recorder');

/** Where a recorder says that events could not be stored. */
export const UsageRecorderLog = token<(line: string) => void>('usage.recorderLog');

/** How long an event waits for others before its batch is written. */
export const FLUSH_DELAY_MS = 250;
/** A batch this large is written at once. */
export const FLUSH_BATCH = 500;
/** More than this many waiting (the database is down): newer events are counted and let go. */
export const MAX_WAITING = 10_000;

/**
 * The {@link UsageRecorder}: events wait in memory and are written in one transaction each
 * {@link FLUSH_DELAY_MS} (or at once past {@link FLUSH_BATCH}), one batch at a time. The timer
 * does not keep the process alive; whoever closes a face calls {@link flush}.
 */
@injectable()
export class BatchedUsageRecorder implements UsageRecorder {
  private waiting: UsageEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private lost = 0;

  constructor(
    @inject(UsageStore) private readonly store: UsageStore,
    @inject(UsageRecorderLog) private readonly log: (line: string) => void,
  ) {}

  record(use: ServedUse): void {
    if (this.waiting.length >= MAX_WAITING) {
      this.lost += 1;
      return;
    }
    this.waiting.push({ ...use, at: Date.now(), source: 'served' });
    if (this.waiting.length >= FLUSH_BATCH) void this.flush();
    else if (this.timer === null) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
      this.timer.unref();
    }
  }

  flush(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.waiting;
    this.waiting = [];
    const lost = this.lost;
    this.lost = 0;
    this.writing = this.writing.then(async () => {
      if (lost > 0) this.log(`usage: ${lost} event(s) were not recorded: too many were waiting for the database`);
      if (batch.length === 0) return;
      try {
        await this.store.record(batch);
      } catch (error) {
        this.log(`usage: ${batch.length} event(s) could not be recorded: ${(error as Error).message}`);
      }
    });
    return this.writing;
  }
}
