import type { Readable, Writable } from 'node:stream';
import type { DependencyContainer } from 'tsyringe';

export interface StdioServeOptions {
  /** The project (a real path) the session is opened for, or null for the global level only. */
  readonly project: string | null;
  /** Where messages come from and go to; the process's stdin and stdout by default. */
  readonly input?: Readable;
  readonly output?: Writable;
  /** Stops serving, e.g. on SIGTERM. */
  readonly stop?: AbortSignal;
  /** Where problems are reported; stderr by default (stdout carries the protocol). */
  readonly log?: (line: string) => void;
}

/**
 * `loadout mcp`: serves the session to one MCP client over stdio until the client goes away. Tool
 * calls run as jobs of this process (see the jobs package's `InlineJobRunner`). The MCP stack is
 * loaded here, on first use, so no other command pays for it.
 *
 * @param container the app's root container, built with `watch: true` so lists are cheap to keep current
 */
export async function serveMcpOverStdio(container: DependencyContainer, options: StdioServeOptions): Promise<void> {
  const { runStdioServer } = await import('./runStdioServer.js');
  await runStdioServer(container, options);
}
