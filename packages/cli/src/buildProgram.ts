import { Command, CommanderError } from 'commander';
import { type CliContext, UnknownCommandError, UsageError } from './CliContext.js';
import { registerAgentsCommand } from './commands/agentsCommand.js';
import { registerApplyCommand } from './commands/applyCommand.js';
import { registerBudgetCommand } from './commands/budgetCommand.js';
import { registerCapabilityCommand } from './commands/capabilityCommand.js';
import { registerCommandsCommand } from './commands/commandsCommand.js';
import { registerCompletionCommand } from './commands/completionCommand.js';
import { registerDoctorCommand } from './commands/doctorCommand.js';
import { registerOpenCommand } from './commands/openCommand.js';
import { registerJobsCommand } from './commands/jobsCommand.js';
import { registerMarketplaceCommand } from './commands/marketplaceCommand.js';
import { registerMcpCommand } from './commands/mcpCommand.js';
import { registerPluginsCommand } from './commands/pluginsCommand.js';
import { registerRuntimesCommand } from './commands/runtimesCommand.js';
import { registerSecretsCommand } from './commands/secretsCommand.js';
import { registerServeCommand } from './commands/serveCommand.js';
import { registerServersCommand } from './commands/serversCommand.js';
import { registerSessionCommand } from './commands/sessionCommand.js';
import { registerSkillsCommand } from './commands/skillsCommand.js';
import { registerTaskRunCommand } from './commands/taskRunCommand.js';
import { registerTasksCommand } from './commands/tasksCommand.js';
import { registerTrustCommands } from './commands/trustCommand.js';
import { registerUsageHookCommand } from './commands/usageHookCommand.js';
import { registerUsageCommand } from './commands/usageCommand.js';
import { registerWhyCommand } from './commands/whyCommand.js';
import { cliVersion } from './version.js';

/**
 * The `loadout` command line. Usage errors exit 2 with one line on stderr (and the error document
 * on stdout under `--json`); refusals exit 1.
 */
export function buildProgram(cli: CliContext): Command {
  const program = new Command('loadout')
    .description('AI-agent capabilities, loaded where they live')
    // Answered by main.ts before the command line loads; listed here so help shows it.
    .version(cliVersion(), '-v, --version', 'print the version (with --json: { "version": … }); -V works too')
    .showHelpAfterError(false)
    .configureOutput({ writeErr: () => undefined })
    .option(
      '--database-url <url>',
      'share the job queue, inbox, switches, trust and transfer journal through this PostgreSQL database (postgres://…) instead of the SQLite file; plugins stay per host; default LOADOUT_DATABASE_URL',
    )
    .exitOverride();
  program.hook('preAction', async (_program, action) => {
    const url = program.opts<{ databaseUrl?: string }>().databaseUrl;
    if (url !== undefined) cli.databaseUrl = url;
    await cli.load(action);
  });
  registerSessionCommand(program, cli);
  registerTaskRunCommand(registerTasksCommand(program, cli), cli);
  registerJobsCommand(program, cli);
  registerServeCommand(program, cli);
  registerMcpCommand(program, cli);
  registerTrustCommands(program, registerPluginsCommand(program, cli), cli);
  registerMarketplaceCommand(program, cli);
  registerCapabilityCommand(program, cli);
  registerSkillsCommand(program, cli);
  registerServersCommand(program, cli);
  registerAgentsCommand(program, cli);
  registerCommandsCommand(program, cli);
  registerApplyCommand(program, cli);
  registerRuntimesCommand(program, cli);
  registerSecretsCommand(program, cli);
  registerWhyCommand(program, cli);
  registerBudgetCommand(program, cli);
  registerCompletionCommand(program, cli);
  registerDoctorCommand(program, cli);
  registerOpenCommand(program, cli);
  registerUsageCommand(program, cli);
  registerUsageHookCommand(program, cli);
  addUsualAliases(program);
  applyUsageErrors(program, cli);
  return program;
}

/** The short names people type from habit: `ls` for list, `rm` for uninstall, remove and delete, `i` for install. */
const USUAL_ALIASES: Readonly<Record<string, string>> = { list: 'ls', uninstall: 'rm', remove: 'rm', delete: 'rm', install: 'i' };

function addUsualAliases(command: Command): void {
  for (const sub of command.commands) {
    const alias = USUAL_ALIASES[sub.name()];
    if (alias !== undefined && sub.aliases().length === 0) sub.alias(alias);
    addUsualAliases(sub);
  }
}

/** Commander's error as Loadout's: an unknown command carries its nearest match as its fix. */
function commandLineError(error: CommanderError, command: Command): UsageError | UnknownCommandError {
  const names: string[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) names.unshift(at.name());
  const path = names.join(' ');
  const [first = '', ...rest] = error.message.replace(/^error: /, '').split('\n');
  if (error.code !== 'commander.unknownCommand')
    return new UsageError(error.message.replace(/^error: /, ''), `\`${path} --help\` shows what it takes`);
  const suggestion = /Did you mean (.+)\?/.exec(rest.join(' '))?.[1] ?? null;
  // The suggestion is the fix, said in the message itself; without one, the group's help lists what there is.
  return suggestion === null
    ? new UnknownCommandError(first, `\`${path} --help\` lists its commands`)
    : new UnknownCommandError(`${first}. Did you mean ${suggestion}?`, null);
}

/** Turns commander's own errors into Loadout's usage errors, on every subcommand. */
function applyUsageErrors(command: Command, cli: CliContext): void {
  command.exitOverride((error: CommanderError) => {
    if (error.code === 'commander.help') {
      // Bare `loadout`, or a command group given no subcommand: its help is the answer, on stdout.
      process.stdout.write(command.helpInformation());
      cli.settle({ kind: 'done' });
      throw error;
    }
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') {
      cli.settle({ kind: 'done' });
      throw error;
    }
    const json = process.argv.includes('--json');
    cli.fail(json, commandLineError(error, command));
    throw error;
  });
  command.configureOutput({ writeErr: () => undefined, writeOut: (text) => process.stdout.write(text) });
  for (const sub of command.commands) applyUsageErrors(sub, cli);
}
