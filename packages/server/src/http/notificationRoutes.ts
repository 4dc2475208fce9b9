import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ApiContext } from './ApiContext.js';
import { openEventStream } from './eventStream.js';
import { IdParams, ListQuery, parseRequest } from './requestSchemas.js';

const InboxQuery = ListQuery.extend({ unread: z.enum(['true', 'false', '1', '0']).optional() });

/** The notification inbox: newest first, a live stream, and marking one read. */
export function registerNotificationRoutes(app: FastifyInstance, api: ApiContext): void {
  app.get('/api/notifications', async (request) => {
    const query = parseRequest(InboxQuery, request.query, 'query');
    return api.inbox.list({
      ...(query.limit === undefined ? {} : { limit: query.limit }),
      unreadOnly: query.unread === 'true' || query.unread === '1',
    });
  });

  /** Server-Sent Events: one `notification` event for each notification stored from now on. */
  app.get('/api/notifications/stream', async (request, reply) => {
    const stream = openEventStream(request, reply, api.streams);
    stream.onClose(api.inbox.subscribe((notification) => stream.send('notification', notification)));
    return reply;
  });

  app.post('/api/notifications/:id/read', async (request) => {
    const { id } = parseRequest(IdParams, request.params, 'path');
    return api.inbox.markRead(id);
  });
}
