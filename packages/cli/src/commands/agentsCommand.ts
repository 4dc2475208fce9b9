import type { Command } from 'commander';
import type { CliContext } from '../CliContext.js';
import { registerLevelCommand } from './skillsCommand.js';

/** `loadout agents list | transfer ID --from END --to END`: subagent definitions, by their frontmatter name. */
export function registerAgentsCommand(program: Command, cli: CliContext): Command {
  return registerLevelCommand(program, cli, {
    command: 'agents',
    kind: 'agent',
    description: 'subagents of every root, and moving an owner’s subagent between the global and a project level',
  });
}
