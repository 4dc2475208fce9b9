import type { Command } from 'commander';
import type { CliContext } from '../CliContext.js';
import { registerLevelCommand } from './skillsCommand.js';

/** `loadout commands list | transfer ID --from END --to END`: slash commands, by their file name. */
export function registerCommandsCommand(program: Command, cli: CliContext): Command {
  return registerLevelCommand(program, cli, {
    command: 'commands',
    kind: 'command',
    description: 'slash commands of every root, and moving an owner’s command between the global and a project level',
  });
}
