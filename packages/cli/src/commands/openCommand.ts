import { spawn as untrackedSpawn } from 'node:child_process';
import path from 'node:path';
import { NotFoundError, spoilsReads } from '@loadout/files';
import type { Command } from 'commander';
import type { CliContext } from '../CliContext.js';
import { screenAddress, serverAddress } from '../serverClient.js';
import { isExecutable } from './applyCommand.js';

/** Starts a process; a ReadLog cannot follow what it reads, so it spoils the current one. */
const spawn = spoilsReads('a child process', untrackedSpawn);

/** The server has made no token yet: it has never run on this data folder. */
class ServerTokenMissingError extends NotFoundError {
  constructor(dataDir: string) {
    super(
      'SERVER_TOKEN_MISSING',
      `no server token in ${dataDir} yet, so no address can sign the screen in: start the server once with \`loadout serve\` (or \`npm start\`)`,
    );
  }
}

/**
 * `loadout open`: prints the address that opens the screen signed in (`…/#token=…`; the screen
 * takes the token out of the address at once), and opens it in the browser with xdg-open when
 * this session has a display. Says so when no server answers there.
 */
export function registerOpenCommand(program: Command, cli: CliContext): void {
  program
    .command('open')
    .description("print the screen's address with its sign-in token, and open it in the browser when there is a display")
    .option('--no-browser', 'print the address only')
    .option('--json', 'print one JSON document: { url, address, serving, opened }')
    .action(async (options: { browser: boolean; json?: boolean }) => {
      await cli.run(
        options.json === true,
        async () => {
          const server = serverAddress(cli);
          if (server.token === null) throw new ServerTokenMissingError(cli.places.dataDir);
          const address = screenAddress(server.url, server.token);
          const serving = await fetch(server.url, { method: 'HEAD', signal: AbortSignal.timeout(2000) }).then(
            () => true,
            () => false,
          );
          const opened = serving && options.browser && options.json !== true && openInBrowser(cli, address);
          return { url: server.url, address, serving, opened };
        },
        (result) =>
          [
            result.address,
            ...(result.serving ? [] : [`(no server answers at ${result.url} yet: start it with \`loadout serve\`, then open the address)`]),
            ...(result.opened ? ['(opened in the browser)'] : []),
          ].join('\n'),
      );
    });
}

/** xdg-open, when a display exists and the command is there; the browser goes on without this process. */
function openInBrowser(cli: CliContext, address: string): boolean {
  if ((cli.env.DISPLAY ?? '') === '' && (cli.env.WAYLAND_DISPLAY ?? '') === '') return false;
  const opener = (cli.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir !== '')
    .map((dir) => path.join(dir, 'xdg-open'))
    .find(isExecutable);
  if (opener === undefined) return false;
  const child = spawn(opener, [address], { detached: true, stdio: 'ignore' });
  child.on('error', () => undefined);
  child.unref();
  return true;
}
