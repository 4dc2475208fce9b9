// Marketplaces on the Plugins view: the ones added, adding one from its git URL, and browsing or
// searching their plugins with an Install button on each, the same operations as
// `loadout marketplace add` and `loadout plugins install NAME@MARKETPLACE`.

import { request } from '../api.js';
import { field } from '../dialogs.js';
import { h } from '../dom.js';

/** The search in view and an add in progress, kept across re-renders. */
const market = { query: '', adding: '', installing: '' };

/** Hits drawn at once: a search narrows the rest. */
const SHOWN_HITS = 50;

/** The panel, read from the server (the list of marketplaces and the hits for the search in view). */
export async function marketplacesPanel(context) {
  const [marketplaces, hits] = await Promise.all([
    request('GET /api/marketplaces'),
    // The search needs the token; without it the panel lists the marketplaces only.
    context.hasToken() ? request('GET /api/marketplaces/search', { query: { q: market.query } }) : Promise.resolve(null),
  ]);
  return h(
    'section',
    { class: 'panel marketplaces', 'aria-labelledby': 'marketplaces-title' },
    h('h2', { id: 'marketplaces-title', text: 'Marketplaces' }),
    h('p', { class: 'hint', text: 'Indexes of plugins in a git repository. Browse or search them, and install a plugin from its entry.' }),
    marketplaces.length === 0
      ? h('p', { class: 'empty', text: 'No marketplace added yet.' })
      : h(
          'ul',
          { class: 'marketplace-list', 'aria-label': 'Added marketplaces' },
          marketplaces.map((added) =>
            h(
              'li',
              { dataset: { marketplace: added.name } },
              h('span', { class: 'name', text: added.name }),
              h('span', { class: 'meta', text: `${added.plugins} ${added.plugins === 1 ? 'plugin' : 'plugins'}` }),
              h('code', { class: 'wrap meta', text: added.url }),
              added.problems.length === 0 ? null : h('span', { class: 'warning', text: added.problems.join('; ') }),
            ),
          ),
        ),
    addForm(context),
    marketplaces.length === 0 ? null : searchForm(context),
    marketplaces.length === 0
      ? null
      : hits === null
        ? h('p', { class: 'hint', text: 'Browsing needs the server token.' })
        : hitList(hits, context),
  );
}

function addForm(context) {
  const url = h('input', { name: 'url', type: 'text', spellcheck: 'false', autocomplete: 'off', placeholder: 'https://… or file:///…' });
  const submit = h('button', {
    type: 'submit',
    class: 'button',
    text: market.adding === '' ? 'Add marketplace' : 'Adding…',
    disabled: market.adding !== '',
    dataset: { focusKey: 'add-marketplace' },
  });
  const form = h(
    'form',
    { class: 'marketplace-add', 'aria-label': 'Add a marketplace' },
    field('Marketplace repository (URL)', url),
    h(
      'div',
      { class: 'form-actions' },
      submit,
      market.adding === '' ? null : h('span', { class: 'progress-text', role: 'status', text: `Cloning ${market.adding}…` }),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const wanted = url.value.trim();
    if (!context.hasToken()) return void context.askForToken();
    if (wanted === '') {
      context.fail('Could not add a marketplace', new Error('give the marketplace’s repository URL'));
      return;
    }
    void withProgress(context, 'adding', wanted, async () => {
      const added = await request('POST /api/marketplaces', { body: { url: wanted } });
      context.notify(`Added marketplace ${added.name}: ${added.plugins} ${added.plugins === 1 ? 'plugin' : 'plugins'}.`);
    });
  });
  return form;
}

function searchForm(context) {
  const query = h('input', {
    name: 'q',
    type: 'search',
    value: market.query,
    spellcheck: 'false',
    autocomplete: 'off',
    placeholder: 'Words in a name, description or keyword; empty lists every plugin',
    dataset: { focusKey: 'marketplace-search' },
  });
  const form = h(
    'form',
    { class: 'marketplace-search', role: 'search', 'aria-label': 'Find plugins in the marketplaces' },
    field('Search marketplaces', query),
    h('button', { type: 'submit', class: 'button', text: 'Search' }),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    market.query = query.value.trim();
    void context.refresh();
  });
  return form;
}

function hitList(hits, context) {
  if (hits.length === 0)
    return h('p', { class: 'empty', text: market.query === '' ? 'The marketplaces list no plugins.' : 'No plugin matches.' });
  const shown = hits.slice(0, SHOWN_HITS);
  return h(
    'div',
    {},
    h(
      'ul',
      {
        class: 'rows marketplace-hits',
        'aria-label': market.query === '' ? 'Plugins in the marketplaces' : `Plugins matching ${market.query}`,
      },
      shown.map((hit) =>
        h(
          'li',
          { class: 'row hit', dataset: { hit: hit.id } },
          h(
            'div',
            { class: 'row-main' },
            h('div', { class: 'row-title' }, h('span', { class: 'name', text: hit.name }), h('code', { class: 'id', text: hit.id })),
            hit.description === '' ? null : h('p', { class: 'description', text: hit.description }),
            h('p', { class: 'meta', text: hit.installed === null ? hit.source : `installed as ${hit.installed}` }),
          ),
          h('div', { class: 'row-actions' }, installButton(hit, context)),
        ),
      ),
    ),
    hits.length > shown.length
      ? h('p', { class: 'hint', text: `${hits.length - shown.length} more: add words to the search to narrow it.` })
      : null,
  );
}

function installButton(hit, context) {
  if (hit.installed !== null) return h('span', { class: 'badge status-succeeded', text: 'installed' });
  if (!hit.installable) return h('span', { class: 'warning', title: hit.reason ?? '', text: 'cannot be installed' });
  const button = h('button', {
    type: 'button',
    class: 'button small primary',
    text: market.installing === hit.id ? 'Installing…' : 'Install',
    disabled: market.installing !== '',
    'aria-label': `Install ${hit.id}`,
    dataset: { focusKey: `install-hit:${hit.id}` },
  });
  button.addEventListener('click', () => {
    if (!context.hasToken()) return void context.askForToken();
    void withProgress(context, 'installing', hit.id, async () => {
      const entry = await request('POST /api/plugins', { body: { url: hit.id } });
      context.notify(`Installed ${entry.name} from ${hit.marketplace}. Its capabilities are in the next session.`);
    });
  });
  return button;
}

/** Runs `work` with `market[what]` set (the panel shows it in progress), then re-reads the view. */
async function withProgress(context, what, value, work) {
  market[what] = value;
  await context.refresh();
  try {
    await work();
  } catch (error) {
    context.fail(`Could not ${what === 'adding' ? 'add' : 'install'} ${value}`, error);
  } finally {
    market[what] = '';
  }
  await context.refresh();
}
