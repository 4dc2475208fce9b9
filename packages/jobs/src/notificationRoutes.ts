import { type ApiRoute, defineRoute, eventStream, IdParams, ListQuery, parseRequest } from '@loadout/api';
import { resolve } from '@loadout/kernel';
import { z } from 'zod';
import { NotificationInbox } from './NotificationInbox.js';

const InboxQuery = ListQuery.unwrap().extend({ unread: z.enum(['true', 'false', '1', '0']).optional() });

/** The notification inbox: newest first, a live stream, and marking one read. All need the token. */
export const notificationRoutes: readonly ApiRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/api/notifications',
    access: 'token',
    handle: async (request, context) => {
      const query = parseRequest(InboxQuery, request.query, 'query');
      return await resolve(context.container, NotificationInbox).list({
        ...(query.limit === undefined ? {} : { limit: query.limit }),
        unreadOnly: query.unread === 'true' || query.unread === '1',
      });
    },
  }),

  /** Server-Sent Events: one `notification` event for each notification stored from now on. */
  defineRoute({
    method: 'GET',
    path: '/api/notifications/stream',
    access: 'token',
    handle: (_request, context) => {
      const inbox = resolve(context.container, NotificationInbox);
      return eventStream((stream) => stream.onClose(inbox.subscribe((notification) => stream.send('notification', notification))));
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/notifications/:id/read',
    access: 'token',
    handle: async (request, context) => {
      const { id } = parseRequest(IdParams, request.params, 'path');
      return await resolve(context.container, NotificationInbox).markRead(id);
    },
  }),
];
