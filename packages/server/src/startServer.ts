import { type DependencyContainer } from 'tsyringe';
import { Places, resolve } from '@loadout/kernel';
import type { FastifyInstance } from 'fastify';
import { type ApiContext, sessionOpener } from './http/ApiContext.js';
import type { EventStream } from './http/eventStream.js';
import { ownHostsFor } from './http/requestGuard.js';
import { JobEvents } from './JobEvents.js';
import { type Job, JobQueue } from './JobQueue.js';
import { type JobWorkerSettings, JobWorkers } from './JobWorkers.js';
import { NotificationInbox } from './NotificationInbox.js';
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
  readonly workers?: Partial<JobWorkerSettings>;
  /** Where the server reports problems; standard error by default. */
  readonly log?: (line: string) => void;
}

export interface RunningServer {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly token: ServerToken;
  /** Jobs a previous server left running, as they were settled at start. */
  readonly recovered: readonly Job[];
  /** Settles when the server has stopped, whether by {@link close} or because it lost its lock. */
  readonly stopped: Promise<void>;
  /** Stops taking requests, stops the running tasks (their jobs are settled), releases the lock. */
  close(): Promise<void>;
}

/**
 * Starts the HTTP API and the job workers over `container` (the app's root container, built with
 * `watch: true`). Takes the data folder's lock first, so a second server on the same data refuses
 * to start, then settles jobs a killed server left running before any worker claims one.
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
  let workers: JobWorkers | null = null;
  try {
    const token = resolveServerToken(places.dataDir, options.token);
    const jobWorkers = container.resolve(JobWorkers);
    workers = jobWorkers;
    const recovered = await jobWorkers.recover();
    for (const job of recovered) log(`job ${job.id} (${job.taskDirName}) was running when the server stopped: now ${job.status}`);
    const api: ApiContext = {
      container,
      queue: resolve(container, JobQueue),
      events: resolve(container, JobEvents),
      inbox: resolve(container, NotificationInbox),
      streams: new Set<EventStream>(),
      jobQueued: () => jobWorkers.wake(),
      withSession: sessionOpener(container),
      log,
    };
    let port = options.port ?? DEFAULT_PORT;
    let ownHosts = ownHostsFor(host, port);
    // Loaded here so that commands other than `serve` never pay for loading the HTTP stack.
    const { createHttpApp } = await import('./http/createHttpApp.js');
    const listening = await createHttpApp(api, { token: token.value, ownHosts: () => ownHosts });
    app = listening;
    try {
      await listening.listen({ port, host });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ServerStartError(
        code === 'EADDRINUSE' ? `port ${port} on ${host} is already in use; choose another with --port` : `cannot listen on ${host}:${port}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const address = listening.server.address();
    if (address !== null && typeof address === 'object') port = address.port;
    ownHosts = ownHostsFor(host, port);
    jobWorkers.start({ ...options.workers, log });

    let markStopped: () => void = () => undefined;
    const stopped = new Promise<void>((done) => (markStopped = done));
    let closing: Promise<void> | null = null;
    const close = (): Promise<void> => {
      closing ??= (async () => {
        await listening.close();
        await jobWorkers.stop();
        await lock.release().catch((error: Error) => log(`releasing the lock: ${error.message}`));
        markStopped();
      })();
      return closing;
    };
    lockLost = () => void close();
    const urlHost = host.includes(':') ? `[${host}]` : host;
    return { url: `http://${urlHost}:${port}`, host, port, token, recovered, stopped, close };
  } catch (error) {
    await app?.close().catch(() => undefined);
    await workers?.stop().catch(() => undefined);
    await lock.release().catch(() => undefined);
    throw error;
  }
}
