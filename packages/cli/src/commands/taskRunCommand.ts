import { exceedsJsonDepth, MAX_JSON_DEPTH, resolve } from '@loadout/kernel';
import type { Command } from 'commander';
import { type CliContext, UsageError } from '../CliContext.js';

interface RunOptions {
  input?: string;
  project?: string;
  json?: boolean;
}

/**
 * `loadout tasks run DIR [--input JSON] [--project DIR]`: runs a task now with the one runner the server uses too
 * (resolved through `getTaskByDirName`, input on stdin, the same environment and timeout). Without
 * `--json` the task's output streams through as it prints; a failed run exits 1.
 */
export function registerTaskRunCommand(tasks: Command, cli: CliContext): void {
  tasks
    .command('run')
    .argument('<dir>', "the task's folder name")
    .description('run a task now, the way the server runs it')
    .option('--input <json>', 'JSON handed to the task on stdin (default: {})')
    .option('--project <dir>', 'the folder the task works in (default: a fresh temporary folder)')
    .option('--json', 'print one JSON document with the output, instead of streaming it')
    .action(async (dirName: string, options: RunOptions) => {
      const json = options.json === true;
      const abort = new AbortController();
      const interrupt = (): void => abort.abort();
      process.once('SIGINT', interrupt);
      process.once('SIGTERM', interrupt);
      try {
        await cli.run(
          json,
          async () => {
            const input = parseInput(options.input);
            const result = await resolve(cli.app(), cli.features.TaskExecution).execute({
              taskDirName: dirName,
              project: options.project ?? null,
              input,
              signal: abort.signal,
              ...(json ? {} : { onOutput: (chunk) => (chunk.stream === 'stdout' ? process.stdout : process.stderr).write(chunk.text) }),
            });
            // Counted in the usage ledger as a use from the command line, stored before this process ends.
            const uses = resolve(cli.app(), cli.features.JobUses);
            uses.ran({ taskDirName: result.task.dirName, project: result.project, succeeded: result.succeeded }, 'cli');
            await uses.flush();
            return {
              taskDirName: result.task.dirName,
              plugin: result.task.plugin,
              project: result.project,
              status: result.succeeded ? 'succeeded' : 'failed',
              exitCode: result.exitCode,
              timedOut: result.timedOut,
              truncated: result.truncated,
              durationMs: result.durationMs,
              output: result.stdout,
              stderr: result.stderr,
              ...(result.succeeded ? {} : { error: cli.features.describeFailure(result) }),
            };
          },
          () => '',
          { failure: (run) => (run.status === 'failed' ? `task ${run.taskDirName} failed: ${run.error ?? ''}` : null) },
        );
      } finally {
        process.off('SIGINT', interrupt);
        process.off('SIGTERM', interrupt);
      }
    });
}

function parseInput(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  let input: unknown;
  try {
    input = JSON.parse(text) as unknown;
  } catch {
    throw new UsageError('--input must be JSON, e.g. --input \'{"text":"hello"}\'');
  }
  if (exceedsJsonDepth(input)) throw new UsageError(`--input nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  return input;
}
