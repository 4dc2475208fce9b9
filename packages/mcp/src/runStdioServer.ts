import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { LiveExposures } from './LiveExposures.js';
import { fixedProject, McpConnection } from './McpConnection.js';
import type { McpServices } from './mcpServices.js';
import { MCP_SERVER_VERSION } from './mcpVersion.js';
import { buildModernServer, listChangedNotification } from './modernSdkServer.js';
import type { StdioServeOptions } from './serveMcpOverStdio.js';

/**
 * Serves one client over stdio until its input ends (the client closed the pipe or went away) or
 * `stop` fires; then every running call is cancelled and its job settled before this returns.
 * The v2 SDK's `serveStdio` chooses the protocol era from the client's opening message
 * (`initialize`: 2025-11-25 and older; `server/discover` or a request carrying the 2026-07-28
 * envelope: 2026-07-28) and pins one server instance for the connection; the connection's record
 * (what the client was shown, its calls and tasks) is one {@link McpConnection} whatever the era.
 * A list change reaches the client as a `list_changed` notification (2025) or on its
 * `subscriptions/listen` stream (2026-07-28): the SDK routes the instance's notification.
 */
export async function runStdioServer(services: McpServices, options: StdioServeOptions): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const log = options.log ?? ((line: string) => process.stderr.write(`loadout mcp: ${line}\n`));
  const exposures = new LiveExposures(services.sessions);
  const connection = new McpConnection(services, exposures, fixedProject(options.project), log, MCP_SERVER_VERSION);
  let finish: () => void = () => undefined;
  const ended = new Promise<void>((done) => (finish = done));
  const handle = serveStdio(
    ({ era }) => {
      const server = buildModernServer(connection, era);
      const stopTelling = connection.onListChanged((list) => server.notification(listChangedNotification(list)));
      server.onclose = () => {
        stopTelling();
        // The pinned instance closes when the connection ends; a discarded probe's does too, but
        // the connection then goes on with the instance made after it.
        if (input.readableEnded || input.destroyed) finish();
      };
      return server;
    },
    { transport: new StdioServerTransport(input, output), onerror: (error) => log(`transport: ${error.message}`) },
  );
  const close = (): void => {
    void handle.close().finally(finish);
  };
  input.once('end', close);
  input.once('close', close);
  output.on('error', close); // the client stopped reading: nobody is left to answer
  options.stop?.addEventListener('abort', close, { once: true });
  try {
    await ended;
  } finally {
    input.off('end', close);
    input.off('close', close);
    options.stop?.removeEventListener('abort', close);
    await connection.close();
    exposures.close();
  }
}
