import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { LiveExposures } from './LiveExposures.js';
import { fixedProject, McpConnection } from './McpConnection.js';
import type { McpServices } from './mcpServices.js';
import { MCP_SERVER_VERSION } from './mcpVersion.js';
import type { StdioServeOptions } from './serveMcpOverStdio.js';

/**
 * Serves one client over stdio until its input ends (the client closed the pipe or went away) or
 * `stop` fires; then every running call is cancelled and its job settled before this returns.
 */
export async function runStdioServer(services: McpServices, options: StdioServeOptions): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const log = options.log ?? ((line: string) => process.stderr.write(`loadout mcp: ${line}\n`));
  const exposures = new LiveExposures(services.sessions);
  const connection = new McpConnection(services, exposures, fixedProject(options.project), log, MCP_SERVER_VERSION);
  const transport = new StdioServerTransport(input, output);
  let finish: () => void = () => undefined;
  const ended = new Promise<void>((done) => (finish = done));
  transport.onclose = () => finish();
  transport.onerror = (error) => log(`transport: ${error.message}`);
  const close = (): void => void transport.close();
  input.once('end', close);
  input.once('close', close);
  output.on('error', close); // the client stopped reading: nobody is left to answer
  options.stop?.addEventListener('abort', close, { once: true });
  try {
    await connection.server.connect(transport);
    await ended;
  } finally {
    input.off('end', close);
    input.off('close', close);
    options.stop?.removeEventListener('abort', close);
    await connection.close();
    exposures.close();
  }
}
