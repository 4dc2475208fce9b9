import { type Session, SessionLoader, token } from '@loadout/kernel';
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import type { JobEvents } from '../JobEvents.js';
import type { JobQueue } from '../JobQueue.js';
import type { NotificationInbox } from '../NotificationInbox.js';
import type { EventStream } from './eventStream.js';

/** What the route handlers share. Built once per server; sessions are opened per request. */
export interface ApiContext {
  /** The process's root container. */
  readonly container: DependencyContainer;
  readonly queue: JobQueue;
  readonly events: JobEvents;
  readonly inbox: NotificationInbox;
  /** Live event streams, ended when the server stops. */
  readonly streams: Set<EventStream>;
  /** Tells the workers that a job was queued. */
  jobQueued(): void;
  /** Opens a session (for `project` when given), hands it to `work` and disposes it after. */
  withSession<T>(project: string | null | undefined, work: (session: Session) => T | Promise<T>): Promise<T>;
  log(line: string): void;
}

/** Opens one session per call from the root container's loader. */
export function sessionOpener(container: DependencyContainer): ApiContext['withSession'] {
  return async (project, work) => {
    const session = await container.resolve(SessionLoader).open({ project: project ?? null });
    try {
      return await work(session);
    } finally {
      session.dispose();
    }
  };
}

/**
 * More routes on the same server, contributed by another package (the capability screen serves
 * its pages this way). Registered after the API's routes, behind the same Host, Origin and token
 * checks.
 *
 * @example
 * contribute(container, HttpRoutes, { name: 'web', register: (app) => app.get('/', serveIndex) });
 */
export interface HttpRouteContribution {
  readonly name: string;
  register(app: FastifyInstance, api: ApiContext): void | Promise<void>;
}
export const HttpRoutes = token<HttpRouteContribution>('server.httpRoutes');
