import { resolve } from '@loadout/kernel';
import type { JobSummary } from '@loadout/jobs';
import type { Command } from 'commander';
import { type CliContext, UsageError } from '../CliContext.js';
import { table } from '../format.js';
import { askServer, serverAddress } from '../serverClient.js';

interface JobsOptions {
  json?: boolean;
}

/** What `jobs cancel` did: who stopped the job, and its state then. */
interface Cancelled {
  readonly id: number;
  readonly status: string;
  /** `server`: the running server stopped it (its process group, if it ran); `queue`: it had not started. */
  readonly by: 'server' | 'queue';
}

/** `loadout jobs list | cancel ID`: the kept jobs, and stopping one. */
export function registerJobsCommand(program: Command, cli: CliContext): Command {
  const jobs = program.command('jobs').description('task runs queued, running and kept; stop one with cancel');

  jobs
    .command('list')
    .description('the newest jobs first (at most 50)')
    .option('--json', 'print one JSON document')
    .action(async (options: JobsOptions) => {
      await cli.run(
        options.json === true,
        () => resolve(cli.app(), cli.features.JobQueue).list({}),
        (rows: readonly JobSummary[]) =>
          rows.length === 0
            ? 'no jobs'
            : table([
                ['ID', 'TASK', 'STATUS', 'CREATED', 'ERROR'],
                ...rows.map((job) => [String(job.id), job.taskDirName, job.status, job.createdAt, job.error ?? '']),
              ]),
      );
    });

  jobs
    .command('cancel')
    .argument('<id>', 'the job, as `jobs list` or the screen shows it')
    .description('stop a job for good: a running one has its process group stopped, a queued one never runs')
    .option('--json', 'print one JSON document')
    .action(async (text: string, options: JobsOptions) => {
      await cli.run(
        options.json === true,
        async (): Promise<Cancelled> => {
          if (!/^[1-9]\d{0,15}$/.test(text)) throw new UsageError(`a job id is a whole number, not "${text.slice(0, 40)}"`);
          const id = Number(text);
          // A running job is stopped by the server that runs it; a queued one may be ended here.
          const server = serverAddress(cli);
          if (server.announced) {
            const answer = await askServer<{ job: { status: string } }>(server, 'POST', `/api/jobs/${id}/cancel`);
            if (answer !== null) return { id, status: answer.job.status, by: 'server' };
          }
          const workers = cli.app().resolve(cli.features.JobWorkers);
          if (!(await workers.cancel(id, cli.features.JOB_CANCELLED_BY_OWNER))) {
            throw new cli.features.JobNotCancellableError(id, (await resolve(cli.app(), cli.features.JobQueue).get(id)).status);
          }
          return { id, status: 'failed', by: 'queue' };
        },
        (done) =>
          done.by === 'server' && done.status === 'running'
            ? `job ${done.id}: stopping its process group (cancelled by the owner)`
            : `job ${done.id} cancelled`,
      );
    });
  return jobs;
}
