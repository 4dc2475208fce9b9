// The command line, run by main.ts once it knows the command is not `--version`.
import { CommanderError } from 'commander';
import { buildProgram } from './buildProgram.js';
import { CliContext } from './CliContext.js';

/**
 * Runs one command (`argv` as in `process.argv`); its outcome is the process's exit code. `build`
 * is the bundle's content hash when run from it (main.ts).
 */
export async function runCli(argv: readonly string[], build: string | null = null): Promise<void> {
  const cli = new CliContext();
  cli.build = build;
  try {
    await buildProgram(cli).parseAsync([...argv]);
  } catch (error) {
    // Commander's own errors were already reported by the usage handler.
    if (!(error instanceof CommanderError)) cli.fail(argv.includes('--json'), error);
  } finally {
    cli.close();
  }
}
