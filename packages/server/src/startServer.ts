import { type EventStream, loadServedParts, type ServerService, ServerServices, type ServiceStartReport } from '@loadout/api';
import { Places, resolve, resolveAll } from '@loadout/kernel';
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { ownHostsFor } from './http/requestGuard.js';
import { createRouteContext } from './http/routeContext.js';
import { acquireServerLock, type ServerLock } from './ServerLock.js';
import { ServerStartError } from './ServerErrors.js';
import { resolveServerToken, type ServerToken } from './ServerToken.js';

/** The port `loadout serve` listens on unless told otherwise. */
export const DEFAULT_PORT = 4477;
export const DEFAULT_HOST = '127.0.0.1';

export interface ServeOptions {
  /** 0 picks a free port; the running server reports the real one. */
  readonly port?: number;
  readonly host?: string;
  /** `LOADOUT_TOKEN`; without it the token file in the data folder is used (and made once). */
  readonly token?: string;
  /** Where the server reports problems; standard error by default. */
  readonly log?: (line: string) => void;
}

export interface RunningServer {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly token: ServerToken;
  /** What each contributed service said when it started (the job workers: jobs a killed server left running). */
  readonly reports: readonly ServiceStartReport[];
  /** Settles when the server has stopped, whether by {@link close} or because it lost its lock. */
  readonly stopped: Promise<void>;
  /** Stops taking requests, stops the running tasks (their jobs are settled), releases the lock. */
  close(): Promise<void>;
}

/**
 * Starts the HTTP API and every contributed service (the job workers) over `container` (the app's
 * root container, built with `watch: true`). Takes the data folder's lock first, so a second
 * server on the same data refuses to start; services start once the server listens, while the
 * lock is held.
 */
export async function startServer(container: DependencyContainer, options: ServeOptions = {}): Promise<RunningServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`loadout serve: ${line}\n`));
  const host = options.host ?? DEFAULT_HOST;
  const places = resolve(container, Places);
  let lockLost: () => void = () => undefined;
  const lock: ServerLock = await acquireServerLock(places.dataDir, (error) => {
    log(`lost the lock on ${places.dataDir} (${error.message}); stopping`);
    lockLost();
  });
  let app: FastifyInstance | null = null;
  const started: ServerService[] = [];
  const stopServices = async (): Promise<void> => {
    for (const service of started.splice(0).reverse())
      await service.stop().catch((error: Error) => log(`stopping ${service.name}: ${error.message}`));
  };
  try {
    const token = resolveServerToken(places.dataDir, options.token);
    const streams = new Set<EventStream>();
    let port = options.port ?? DEFAULT_PORT;
    let ownHosts = ownHostsFor(host, port);
    // Loaded here so that commands other than `serve` never pay for loading the HTTP stack.
    const { createHttpApp } = await import('./http/createHttpApp.js');
    // Every package's routes and JSON-RPC methods (and any module the container was made
    // without), which one-shot commands never load.
    await loadServedParts(container);
    const listening = await createHttpApp(
      { container, route: createRouteContext(container, log), streams },
      { token: token.value, ownHosts: () => ownHosts },
    );
    app = listening;
    try {
      await listening.listen({ port, host });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ServerStartError(
        code === 'EADDRINUSE'
          ? `port ${port} on ${host} is already in use; choose another with --port`
          : `cannot listen on ${host}:${port}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const address = listening.server.address();
    if (address !== null && typeof address === 'object') port = address.port;
    ownHosts = ownHostsFor(host, port);
    const reports: ServiceStartReport[] = [];
    for (const service of resolveAll(container, ServerServices)) {
      const report = await service.start({ log });
      started.push(service);
      reports.push(report);
    }

    let markStopped: () => void = () => undefined;
    const stopped = new Promise<void>((done) => (markStopped = done));
    let closing: Promise<void> | null = null;
    const close = (): Promise<void> => {
      closing ??= (async () => {
        await listening.close();
        await stopServices();
        await lock.release().catch((error: Error) => log(`releasing the lock: ${error.message}`));
        markStopped();
      })();
      return closing;
    };
    lockLost = () => void close();
    const urlHost = host.includes(':') ? `[${host}]` : host;
    const url = `http://${urlHost}:${port}`;
    lock.announce(url);
    return { url, host, port, token, reports, stopped, close };
  } catch (error) {
    await app?.close().catch(() => undefined);
    await stopServices();
    await lock.release().catch(() => undefined);
    throw error;
  }
}
