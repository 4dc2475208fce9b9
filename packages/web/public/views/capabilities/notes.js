// The lines around the capability lists: the token prompt, the plugins' hidden rows, the notes
// from reading the roots.

import { h } from '../../dom.js';

export function diagnostics(session) {
  const items = Array.isArray(session?.diagnostics) ? session.diagnostics : [];
  if (items.length === 0) return null;
  return h(
    'details',
    { class: 'diagnostics' },
    h('summary', { text: `${items.length} ${items.length === 1 ? 'note' : 'notes'} from reading the roots` }),
    h(
      'ul',
      {},
      items.map((item) => h('li', {}, h('code', { text: item.code }), ' ', item.message)),
    ),
  );
}

export function needsToken(context) {
  const button = h('button', { type: 'button', class: 'button primary', text: 'Enter the server token' });
  button.addEventListener('click', () => void context.askForToken());
  return h('div', { class: 'panel empty-state' }, h('p', { text: 'Capability state is read and changed with the server token.' }), button);
}

/** One line saying how many capabilities disabled plugins take out of the view, with a link to Plugins. */
export function hiddenByPluginNote(hidden) {
  if (hidden === 0) return null;
  return h(
    'p',
    { class: 'note' },
    `${hidden} ${hidden === 1 ? 'capability' : 'capabilities'} of disabled plugins ${hidden === 1 ? 'is' : 'are'} not in any session. `,
    h('a', { href: '#plugins', text: 'Plugins' }),
  );
}
