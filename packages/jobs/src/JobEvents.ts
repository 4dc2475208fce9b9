import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { SqlDatabase } from '@loadout/db';
import { token } from '@loadout/kernel';
import { inject, injectable } from 'tsyringe';
import { type Job, JobQueue } from './JobQueue.js';
import { JobUses } from './JobUses.js';
import type { OutputChunk } from './TaskRunner.js';

/** What a job's live stream carries: output as it is printed, then the job whenever its status changes. */
export type JobEvent = { readonly type: 'output'; readonly chunk: OutputChunk } | { readonly type: 'status'; readonly job: Job };

/**
 * Live news of jobs: their output while it is printed (kept in memory until the job's attempt is
 * stored) and their status changes. The database holds everything once an attempt ends; this
 * covers the time in between. On a shared PostgreSQL database the news of jobs other servers run
 * arrives too, so a client of any server follows any job.
 */
export interface JobEvents {
  /** A job started running: its live output starts empty. */
  started(job: Job): void;
  output(jobId: number, chunk: OutputChunk): void;
  /** A job's status changed (an attempt ended, it was queued again, a step was skipped). */
  changed(job: Job): void;
  /** The output printed so far by the running attempt of `jobId`, if this process has heard it. */
  liveOutput(jobId: number): { readonly stdout: string; readonly stderr: string } | undefined;
  subscribe(jobId: number, listener: (event: JobEvent) => void): () => void;
}
export const JobEvents = token<JobEvents>('jobs.jobEvents');

/** The channel job news travels on between servers. */
const EVENTS_CHANNEL = 'loadout_job_events';

/** Output travels in pieces this long, so a message stays under PostgreSQL's 8000 bytes even escaped. */
const PIECE = 1000;

/** One piece of news as it travels: `o` the sending process, `t` started/output/changed. */
type Message = { o: string; id: number } & ({ t: 'started' | 'changed' } | { t: 'output'; s: OutputChunk['stream']; x: string });

@injectable()
export class JobEventHub implements JobEvents {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private readonly live = new Map<number, { stdout: string; stderr: string }>();
  /** Names this process in what it sends, so it does not hear its own news twice. */
  private readonly origin = randomUUID();
  private listening: Promise<unknown> | null = null;

  constructor(
    @inject(SqlDatabase) private readonly db: SqlDatabase,
    @inject(JobQueue) private readonly queue: JobQueue,
    @inject(JobUses) private readonly uses: JobUses,
  ) {}

  started(job: Job): void {
    this.startedHere(job);
    this.send({ o: this.origin, id: job.id, t: 'started' });
  }

  output(jobId: number, chunk: OutputChunk): void {
    this.outputHere(jobId, chunk);
    for (let at = 0; at < chunk.text.length; at += PIECE) {
      this.send({ o: this.origin, id: jobId, t: 'output', s: chunk.stream, x: chunk.text.slice(at, at + PIECE) });
    }
  }

  changed(job: Job): void {
    this.changedHere(job);
    // Only the process that changed the job records its end (news heard from other servers is not
    // passed here), so a run is counted once however many servers follow it.
    this.uses.changed(job);
    this.send({ o: this.origin, id: job.id, t: 'changed' });
  }

  liveOutput(jobId: number): { stdout: string; stderr: string } | undefined {
    const buffer = this.live.get(jobId);
    return buffer === undefined ? undefined : { ...buffer };
  }

  subscribe(jobId: number, listener: (event: JobEvent) => void): () => void {
    this.listen();
    this.emitter.on(String(jobId), listener);
    return () => this.emitter.off(String(jobId), listener);
  }

  private startedHere(job: Job): void {
    this.live.set(job.id, { stdout: '', stderr: '' });
    this.emitter.emit(String(job.id), { type: 'status', job } satisfies JobEvent);
  }

  private outputHere(jobId: number, chunk: OutputChunk): void {
    const buffer = this.live.get(jobId);
    if (buffer !== undefined) buffer[chunk.stream] += chunk.text;
    this.emitter.emit(String(jobId), { type: 'output', chunk } satisfies JobEvent);
  }

  private changedHere(job: Job): void {
    if (job.status !== 'running') this.live.delete(job.id);
    this.emitter.emit(String(job.id), { type: 'status', job } satisfies JobEvent);
  }

  /** Only a database other servers share carries news; the process's own listeners heard it already. */
  private send(message: Message): void {
    if (this.db.dialect !== 'postgres') return;
    this.db.notify(null, EVENTS_CHANNEL, JSON.stringify(message)).catch(() => undefined);
  }

  /** Listens for other servers' news once someone here follows a job. */
  private listen(): void {
    if (this.db.dialect !== 'postgres') return;
    this.listening ??= this.db
      .listen(EVENTS_CHANNEL, (payload) => void this.heard(payload))
      .catch(() => {
        this.listening = null;
      });
  }

  private async heard(payload: string): Promise<void> {
    let message: Message;
    try {
      message = JSON.parse(payload) as Message;
    } catch {
      return;
    }
    if (message.o === this.origin || this.emitter.listenerCount(String(message.id)) === 0) return;
    if (message.t === 'output') {
      this.outputHere(message.id, { stream: message.s, text: message.x });
      return;
    }
    const job = await this.queue.get(message.id).catch(() => null);
    if (job === null) return;
    if (message.t === 'started') this.startedHere(job);
    else this.changedHere(job);
  }
}
