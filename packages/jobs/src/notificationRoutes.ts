import { type ApiRoute, defineRoute, eventStream, IdParams, ListQuery } from '@loadout/api';
import { z } from 'zod';
import { NotificationInbox } from './NotificationInbox.js';

const InboxQuery = ListQuery.unwrap().extend({ unread: z.enum(['true', 'false', '1', '0']).optional() });
/** What `GET /api/notifications` takes, as a client writes it. */
export type InboxQuery = z.input<typeof InboxQuery>;
const deps = { inbox: NotificationInbox };

/** The notification inbox: newest first, a live stream, and marking one read. All need the token. */
export const notificationRoutes: readonly ApiRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/api/notifications',
    access: 'token',
    deps,
    query: InboxQuery,
    handle: async ({ query }, { inbox }) => {
      return await inbox.list({
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
    deps,
    handle: (_input, { inbox }) => {
      return eventStream((stream) => stream.onClose(inbox.subscribe((notification) => stream.send('notification', notification))));
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/notifications/:id/read',
    access: 'token',
    deps,
    params: IdParams,
    handle: ({ params }, { inbox }) => inbox.markRead(params.id),
  }),
];
