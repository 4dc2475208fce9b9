import { DEFAULT_JOB_RETENTION } from '@loadout/jobs/retention';
import type { RunningServer } from '@loadout/server';
import type { Command } from 'commander';
import { registerLoadoutLauncher } from './applyCommand.js';
import { KEEP_USAGE_DAYS_VARIABLE, keepUsageDays } from './usageCommand.js';
import { type CliContext, UsageError } from '../CliContext.js';
import { screenAddress } from '../serverClient.js';

interface ServeOptions {
  port?: string;
  host?: string;
  workers?: string;
  keepJobs?: string;
  keepJobDays?: string;
  json?: boolean;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * `loadout serve [--port N] [--host ADDR] [--workers N]`: the HTTP API and the job workers, until
 * SIGINT or SIGTERM. Prints where it listens and how to authenticate; never the token itself.
 */
export function registerServeCommand(program: Command, cli: CliContext): void {
  program
    .command('serve')
    .description('serve the HTTP API (and the capability screen) and run queued tasks')
    .option('--port <n>', 'port to listen on; 0 picks a free one (default: LOADOUT_PORT, else 4477)')
    .option('--host <address>', 'address to listen on; anything but loopback exposes the server to the network', '127.0.0.1')
    .option('--workers <n>', 'how many jobs run at once (default: LOADOUT_WORKERS, else 2)')
    .option('--keep-jobs <n>', `how many finished jobs are kept (default: LOADOUT_KEEP_JOBS, else ${DEFAULT_JOB_RETENTION.keepJobs})`)
    .option(
      '--keep-job-days <n>',
      `how many days a finished job is kept (default: LOADOUT_KEEP_JOB_DAYS, else ${DEFAULT_JOB_RETENTION.keepDays})`,
    )
    .option('--json', 'print one JSON document describing the server once it listens')
    .action(async (options: ServeOptions) => {
      let server: RunningServer | null = null;
      await cli.run(
        options.json === true,
        async () => {
          const port = whole(options.port ?? nonEmpty(cli.env.LOADOUT_PORT) ?? '4477', '--port', 0, 65535);
          const count = whole(options.workers ?? nonEmpty(cli.env.LOADOUT_WORKERS) ?? '2', '--workers', 1, 64);
          const retention = {
            keepJobs: whole(
              options.keepJobs ?? nonEmpty(cli.env.LOADOUT_KEEP_JOBS) ?? String(DEFAULT_JOB_RETENTION.keepJobs),
              '--keep-jobs',
              1,
              999_999,
            ),
            keepDays: whole(
              options.keepJobDays ?? nonEmpty(cli.env.LOADOUT_KEEP_JOB_DAYS) ?? String(DEFAULT_JOB_RETENTION.keepDays),
              '--keep-job-days',
              1,
              36_500,
            ),
          };
          const host = options.host ?? '127.0.0.1';
          if (!LOOPBACK.has(host))
            process.stderr.write(`loadout serve: listening on ${host}: anyone who can reach it and has the token can run tasks\n`);
          const app = cli.app({ watch: true });
          // The screen's Apply writes servers with secrets as the command line does.
          registerLoadoutLauncher(cli);
          cli.features.configureJobWorkers(app, { count });
          cli.features.configureJobRetention(app, retention);
          cli.features.configureUsageRetention(app, { keepDays: keepUsageDays(cli.env[KEEP_USAGE_DAYS_VARIABLE]) });
          server = await cli.features.startServer(app, {
            port,
            host,
            ...(nonEmpty(cli.env.LOADOUT_TOKEN) === undefined ? {} : { token: cli.env.LOADOUT_TOKEN }),
          });
          return {
            url: server.url,
            host: server.host,
            port: server.port,
            token:
              server.token.source === 'file' ? { source: 'file', file: server.token.file } : { source: 'env', variable: 'LOADOUT_TOKEN' },
            ...(Object.assign({}, ...server.reports.map((report) => report.json)) as Record<string, unknown>),
            notes: server.reports.flatMap((report) => report.lines),
          };
        },
        (described) =>
          [
            `Loadout is serving ${described.url}`,
            // The address that opens the screen signed in, for the person at this terminal only: never into a log file or a pipe.
            ...(process.stdout.isTTY === true && server !== null
              ? [`  open the screen: ${screenAddress(described.url, (server as RunningServer).token.value)}`]
              : []),
            described.token.source === 'file'
              ? `  token: in ${described.token.file} (readable only by you)`
              : '  token: the value of LOADOUT_TOKEN',
            '  send it as "Authorization: Bearer <token>" with every request that changes something or runs a task,',
            '  and with reads of jobs, pipelines and notifications',
            ...described.notes.map((line) => `  ${line}`),
            'Press Ctrl-C to stop.',
          ].join('\n'),
      );
      const running = server as RunningServer | null;
      if (running === null) return;
      await new Promise<void>((done) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void running.close().then(done);
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        void running.stopped.then(done);
      });
    });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function whole(text: string, option: string, min: number, max: number): number {
  const value = /^\d{1,6}$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(value) || value < min || value > max)
    throw new UsageError(`${option} must be a whole number from ${min} to ${max}`);
  return value;
}
