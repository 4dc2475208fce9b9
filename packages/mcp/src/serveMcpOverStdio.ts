import type { Readable, Writable } from 'node:stream';
import type { DependencyContainer } from 'tsyringe';
import { resolveMcpServices } from './mcpServices.js';

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
 * loaded here, on first use, so no other command pays for it. The services it needs are taken from
 * the container before anything is read: an app without one fails here, naming it.
 *
 * @param container the app's root container, built with `watch: true` so lists are cheap to keep current
 * @throws WiringError when the app lacks a service MCP needs
 */
export async function serveMcpOverStdio(container: DependencyContainer, options: StdioServeOptions): Promise<void> {
  const services = resolveMcpServices(container, 'loadout mcp');
  const { runStdioServer } = await import('./runStdioServer.js');
  await runStdioServer(services, options);
}
