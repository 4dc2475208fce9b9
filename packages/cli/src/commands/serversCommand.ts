import type { Command } from 'commander';
import type { CliContext } from '../CliContext.js';
import { registerLevelCommand } from './skillsCommand.js';

/** `loadout servers list | transfer ID --from END --to END`: MCP server definitions, by file stem. */
export function registerServersCommand(program: Command, cli: CliContext): Command {
  return registerLevelCommand(program, cli, {
    command: 'servers',
    kind: 'server',
    description: 'MCP servers of every root, and moving an owner’s server between the global and a project level',
  });
}
