// The notification inbox: newest first, unread marked, each one markable as read. New ones arrive
// over the live stream the page keeps open (see app.js).

import { request } from '../api.js';
import { h, relativeTime, replaceChildren } from '../dom.js';

export async function renderInbox(container, context) {
  const title = h('h1', { text: 'Inbox' });
  const lede = h('p', { class: 'lede', text: 'What tasks and plugins reported, through the notification catalogues that are on.' });
  if (!context.hasToken()) {
    const button = h('button', { type: 'button', class: 'button primary', text: 'Enter the server token' });
    button.addEventListener('click', () => void context.askForToken());
    replaceChildren(
      container,
      h('div', { class: 'view-head' }, title, lede),
      h('div', { class: 'panel empty-state' }, h('p', { text: 'The inbox is read with the server token.' }), button),
    );
    return;
  }
  const items = await request('GET /api/notifications', { query: { limit: 200 } });
  const list = Array.isArray(items) ? items : [];
  const unread = list.filter((item) => !item.read);
  context.setUnread(unread.length);

  const markAll = h('button', {
    type: 'button',
    class: 'button',
    text: 'Mark all read',
    disabled: unread.length === 0,
    dataset: { focusKey: 'mark-all' },
  });
  markAll.addEventListener('click', async () => {
    try {
      for (const item of unread) await request('POST /api/notifications/:id/read', { params: { id: item.id } });
      context.notify(`Marked ${unread.length} read.`);
    } catch (error) {
      context.fail('Could not mark the notifications read', error);
    }
    await context.refresh();
  });

  replaceChildren(
    container,
    h('div', { class: 'view-head' }, title, lede, markAll),
    list.length === 0
      ? h('p', { class: 'empty panel', text: 'Nothing yet. Runs and plugins report here.' })
      : h(
          'ul',
          { class: 'inbox', 'aria-label': 'Notifications' },
          list.map((item) => {
            const mark = item.read
              ? null
              : h('button', {
                  type: 'button',
                  class: 'button quiet small',
                  text: 'Mark read',
                  'aria-label': `Mark “${item.title}” read`,
                  dataset: { focusKey: `read:${item.id}` },
                });
            mark?.addEventListener('click', async () => {
              try {
                await request('POST /api/notifications/:id/read', { params: { id: item.id } });
              } catch (error) {
                context.fail('Could not mark it read', error);
              }
              await context.refresh();
            });
            return h(
              'li',
              { class: `notification severity-${item.severity}${item.read ? '' : ' unread'}`, dataset: { id: String(item.id) } },
              h('span', { class: 'severity', text: item.severity }),
              h(
                'div',
                { class: 'notification-main' },
                h(
                  'div',
                  { class: 'row-title' },
                  h('span', { class: 'name', text: item.title }),
                  item.read ? null : h('span', { class: 'visually-hidden', text: '(unread)' }),
                ),
                h('p', { class: 'description', text: item.message }),
                h(
                  'p',
                  { class: 'meta' },
                  h('code', { text: item.notification }),
                  ` · ${item.plugin ?? 'owner'} · `,
                  h('time', { datetime: item.createdAt, title: item.createdAt, text: relativeTime(item.createdAt) }),
                ),
              ),
              mark,
            );
          }),
        ),
  );
}
