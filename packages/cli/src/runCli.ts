// The command line, loaded by main.ts once it knows the command is not `--version`.
import { CommanderError } from 'commander';
import { buildProgram } from './buildProgram.js';
import { CliContext } from './CliContext.js';

const cli = new CliContext();
try {
  await buildProgram(cli).parseAsync(process.argv);
} catch (error) {
  // Commander's own errors were already reported by the usage handler.
  if (!(error instanceof CommanderError)) cli.fail(process.argv.includes('--json'), error);
} finally {
  cli.close();
}
