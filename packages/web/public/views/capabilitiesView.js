// Capabilities by kind, grouped by level: the project in view, then Global (the owner's own and
// every enabled plugin's). The rows, the toolbar, the moves and the notes are modules of their own
// in ./capabilities/; this one reads the server and lays the parts out.

import { request, rpc } from '../api.js';
import { baseName, focusByKey, focusKeyOf, h, replaceChildren, uniqueId } from '../dom.js';
import { kindLabel, LIST_METHOD } from './capabilities/labels.js';
import { diagnostics, hiddenByPluginNote, needsToken } from './capabilities/notes.js';
import { compareIds, recordsByPath, shadowsOf } from './capabilities/records.js';
import { renderRow, renderShadowRow } from './capabilities/rows.js';
import { filters, toolbar } from './capabilities/toolbar.js';

export async function renderCapabilities(container, context) {
  const heading = h('h1', { text: 'Capabilities' });
  if (!context.hasToken()) {
    replaceChildren(container, heading, needsToken(context));
    return;
  }
  const project = context.project;
  const [stateAnswer, session, ...lists] = await Promise.all([
    rpc('capability.state', { project }),
    request('GET /api/session', { query: { project } }),
    ...Object.values(LIST_METHOD).map((method) => rpc(method, { project })),
  ]);
  const entries = Array.isArray(stateAnswer) ? stateAnswer : (stateAnswer?.capabilities ?? []);
  const listed = recordsByPath(session, lists);
  const describe = (path) => listed.get(path)?.description ?? '';

  const visible = entries.filter(
    (entry) => entry.installed !== false && entry.decidedBy !== 'plugin-disabled' && entry.decidedBy !== 'plugin-not-installed',
  );
  const kinds = [...new Set(entries.map((entry) => entry.kind))];
  if (filters.kind !== 'all' && !kinds.includes(filters.kind)) filters.kind = 'all';
  const view = { context, project, scope: project === null ? 'global' : filters.scope, describe };

  const rerender = () => {
    const focusKey = focusKeyOf(document.activeElement);
    replaceChildren(list, renderKinds());
    if (focusKey !== null) focusByKey(list, focusKey);
  };

  const matches = (entry) => {
    const text = filters.text.trim().toLowerCase();
    if (text === '') return true;
    return [entry.name, entry.id, describe(entry.path), entry.plugin ?? 'owner'].some((value) =>
      String(value).toLowerCase().includes(text),
    );
  };

  const renderKinds = () => {
    const shown = kinds.filter((kind) => filters.kind === 'all' || filters.kind === kind);
    return shown.map((kind) => {
      const ofKind = visible.filter((entry) => entry.kind === kind && matches(entry));
      const items = [...ofKind, ...ofKind.flatMap((entry) => shadowsOf(entry, listed))].sort(
        (a, b) => compareIds(a.id, b.id) || (a.shadowedBy ? 1 : 0) - (b.shadowedBy ? 1 : 0),
      );
      const headingId = uniqueId('kind');
      const groups = [];
      if (project !== null)
        groups.push({
          key: 'project',
          level: 'Project',
          name: baseName(project),
          detail: project,
          items: items.filter((item) => item.level === 'project'),
        });
      groups.push({
        key: 'global',
        level: 'Global',
        name: '',
        detail: 'the owner’s capabilities and enabled plugins',
        items: items.filter((item) => item.level !== 'project'),
      });
      return h(
        'section',
        { class: 'kind', 'aria-labelledby': headingId, dataset: { kind } },
        h('h2', { id: headingId }, kindLabel(kind), h('span', { class: 'count', text: String(ofKind.length) })),
        groups.map((group) => renderGroup(group)),
      );
    });
  };

  const renderGroup = (group) => {
    const headingId = uniqueId('group');
    const empty = group.items.length === 0;
    return h(
      'div',
      { class: `group${empty ? ' is-empty' : ''}`, dataset: { group: group.key } },
      h(
        'h3',
        { id: headingId, title: group.detail },
        h('span', { class: 'level-label', text: group.level }),
        group.name === '' ? null : h('span', { class: 'group-name', text: group.name }),
        empty ? h('span', { class: 'group-detail', text: filters.text === '' ? 'nothing at this level' : 'nothing matches here' }) : null,
      ),
      empty
        ? null
        : h(
            'ul',
            { class: 'rows', 'aria-labelledby': headingId },
            group.items.map((item) => (item.shadowedBy ? renderShadowRow(item, view) : renderRow(item, view))),
          ),
    );
  };

  const list = h('div', { class: 'kinds' }, renderKinds());
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
    toolbar({ kinds, visible, project, context, onChange: rerender }),
    hiddenByPluginNote(entries.length - visible.length),
    diagnostics(session),
    list,
  );
}
