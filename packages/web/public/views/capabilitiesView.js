// Capabilities by kind, grouped by level (the project in view, then Global) or by plugin, with a
// search and filters by kind and state. The rows, lists, toolbar, moves and notes are modules of
// their own in ./capabilities/; this one reads the server and lays the parts out.
//
// The first drawing waits only for the state and the session; the listings that describe what is
// off (slow with thousands of skills) fill the descriptions in when they arrive.

import { request, rpc } from '../api.js';
import { focusByKey, focusKeyOf, h, replaceChildren } from '../dom.js';
import { LIST_METHOD } from './capabilities/labels.js';
import { forgetDrawnPages, pageObserver, renderKinds } from './capabilities/lists.js';
import { buildModel, filterRows, usageByKey, usageEntryOf } from './capabilities/model.js';
import { diagnostics, hiddenByPluginNote, needsToken } from './capabilities/notes.js';
import { recordsByPath } from './capabilities/records.js';
import { filters, installSlashToSearch, toolbar } from './capabilities/toolbar.js';

export async function renderCapabilities(container, context) {
  const heading = h('h1', { text: 'Capabilities' });
  if (!context.hasToken()) {
    replaceChildren(container, heading, needsToken(context));
    return;
  }
  installSlashToSearch();
  const project = context.project;
  const [stateAnswer, session] = await Promise.all([
    rpc('capability.state', { project }),
    request('GET /api/session', { query: { project } }),
  ]);
  performance.mark('loadout:capabilities-read');
  // Asked only now: the server reads one request at a time, and these would delay the state.
  const listings = Promise.all(Object.values(LIST_METHOD).map((method) => rpc(method, { project })));
  // The ledger too, for the Usage of each row and its filter: the rows are drawn without it first.
  const ledger = request('GET /api/usage', { query: { project, since: '30d' } });
  /** @type {Map<string, any> | null} */
  let usage = null;
  const entries = Array.isArray(stateAnswer) ? stateAnswer : (stateAnswer?.capabilities ?? []);
  let model = buildModel(entries, recordsByPath(session, []));
  if (filters.kind !== 'all' && !model.kinds.includes(filters.kind)) filters.kind = 'all';
  const view = {
    context,
    project,
    scope: project === null ? 'global' : filters.scope,
    describe: (path) => model.describe(path),
    // undefined: the ledger has not answered; null: it counts no use of this capability.
    usageOf: (kind, id) => usageEntryOf(usage, kind, id),
  };

  let observer = pageObserver();
  const drawLists = () => {
    observer.disconnect();
    observer = pageObserver();
    const rows = filterRows(model.rows, filters, usage);
    return renderKinds(rows, {
      kinds: model.kinds,
      kindFilter: filters.kind,
      grouping: filters.grouping,
      filtered: filters.text.trim() !== '' || filters.state !== 'all' || filters.usage !== 'all',
      project,
      view,
      observer,
    });
  };
  const redraw = () => {
    const focusKey = focusKeyOf(document.activeElement);
    replaceChildren(list, drawLists());
    if (focusKey !== null) focusByKey(list, focusKey);
  };

  const list = h('div', { class: 'kinds', 'aria-live': 'off' }, drawLists());
  replaceChildren(
    container,
    h(
      'div',
      { class: 'view-head' },
      heading,
      h('p', {
        class: 'lede',
        text:
          project === null
            ? 'What every session gets at the global level. Open a project to see its own level too.'
            : `What a session in ${project} gets, and why.`,
      }),
    ),
    toolbar({
      model,
      project,
      context,
      onChange: () => {
        forgetDrawnPages();
        redraw();
      },
    }),
    hiddenByPluginNote(model.hiddenByPlugin),
    diagnostics(session),
    list,
  );
  performance.mark('loadout:capabilities-drawn');

  // The ledger's answer comes with the descriptions: one redraw, and `described` marks both drawn.
  const usageRead = ledger.then(
    (report) => (usage = usageByKey(report)),
    (error) => context.fail('Could not read the usage ledger', error),
  );
  Promise.all([listings, usageRead]).then(
    ([lists]) => {
      model = buildModel(entries, recordsByPath(session, lists));
      redraw();
      container.dataset.described = 'true';
    },
    (error) => {
      context.fail('Could not read the descriptions of what is off', error);
      container.dataset.described = 'false';
    },
  );
}
