import { findProjectFolder, SessionLoader } from '@loadout/kernel';
import type { Command } from 'commander';
import type { CliContext } from '../CliContext.js';

interface McpOptions {
  project?: string;
  json?: boolean;
}

/**
 * `loadout mcp [--project DIR]`: the live session as an MCP server over stdio, for an agent's
 * configuration (`claude mcp add loadout -- loadout mcp`). Stdout carries the protocol and nothing
 * else; a refusal to start is reported like any other command's. Serves until the client closes
 * its end, or SIGINT/SIGTERM; running tool calls are then cancelled and their jobs settled.
 */
export function registerMcpCommand(program: Command, cli: CliContext): void {
  program
    .command('mcp')
    .description(
      'serve the live session to an MCP client over stdio (tools, resources, prompts); `loadout mcp run NAME … -- COMMAND` (written by apply) starts a server with its secrets',
    )
    .option(
      '--project <dir>',
      'the folder the agent works in (default: the nearest folder at or above the working folder with .agents/ or .git, else the global level only)',
    )
    .option('--json', 'report a refusal to start as one JSON document (the protocol itself is JSON-RPC)')
    .action(async (options: McpOptions) => {
      let project: string | null;
      try {
        project =
          options.project === undefined
            ? findProjectFolder(process.cwd(), cli.env.HOME ?? null, 'project-folder-or-git')
            : SessionLoader.resolveProject(options.project);
      } catch (error) {
        cli.fail(options.json === true, error);
        return;
      }
      const stop = new AbortController();
      const onSignal = (): void => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        await cli.features.serveMcpOverStdio(cli.app({ watch: true }), { project, stop: stop.signal });
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}
