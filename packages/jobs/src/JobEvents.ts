import { EventEmitter } from 'node:events';
import { token } from '@loadout/kernel';
import type { Job } from './JobQueue.js';
import type { OutputChunk } from './TaskRunner.js';

/** What a job's live stream carries: output as it is printed, then the job whenever its status changes. */
export type JobEvent = { readonly type: 'output'; readonly chunk: OutputChunk } | { readonly type: 'status'; readonly job: Job };

/**
 * Live news of the jobs this process runs: their output while it is printed (kept in memory until
 * the job's attempt is stored) and their status changes. The database holds everything once an
 * attempt ends; this covers the time in between.
 */
export interface JobEvents {
  /** A job started running: its live output starts empty. */
  started(job: Job): void;
  output(jobId: number, chunk: OutputChunk): void;
  /** A job's status changed (an attempt ended, it was queued again, a step was skipped). */
  changed(job: Job): void;
  /** The output printed so far by the running attempt of `jobId`, if it is running here. */
  liveOutput(jobId: number): { readonly stdout: string; readonly stderr: string } | undefined;
  subscribe(jobId: number, listener: (event: JobEvent) => void): () => void;
}
export const JobEvents = token<JobEvents>('jobs.jobEvents');

export class JobEventHub implements JobEvents {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private readonly live = new Map<number, { stdout: string; stderr: string }>();

  started(job: Job): void {
    this.live.set(job.id, { stdout: '', stderr: '' });
    this.emitter.emit(String(job.id), { type: 'status', job } satisfies JobEvent);
  }

  output(jobId: number, chunk: OutputChunk): void {
    const buffer = this.live.get(jobId);
    if (buffer !== undefined) buffer[chunk.stream] += chunk.text;
    this.emitter.emit(String(jobId), { type: 'output', chunk } satisfies JobEvent);
  }

  changed(job: Job): void {
    if (job.status !== 'running') this.live.delete(job.id);
    this.emitter.emit(String(job.id), { type: 'status', job } satisfies JobEvent);
  }

  liveOutput(jobId: number): { stdout: string; stderr: string } | undefined {
    const buffer = this.live.get(jobId);
    return buffer === undefined ? undefined : { ...buffer };
  }

  subscribe(jobId: number, listener: (event: JobEvent) => void): () => void {
    this.emitter.on(String(jobId), listener);
    return () => this.emitter.off(String(jobId), listener);
  }
}
