// The controls above the capability lists: which kinds, a text filter, and where switches write.

import { baseName, h } from '../../dom.js';
import { KIND_LABELS } from './labels.js';

/** Filters kept while the screen is open, so a re-render after a change keeps the owner's place. */
export const filters = { kind: 'all', text: '', scope: 'project' };

/** `onChange` re-renders the lists only; `onScope` re-reads the view. */
export function toolbar({ kinds, visible, project, context, onChange }) {
  const kindButtons = ['all', ...kinds].map((kind) => {
    const count = kind === 'all' ? visible.length : visible.filter((entry) => entry.kind === kind).length;
    const button = h(
      'button',
      { type: 'button', class: 'chip', 'aria-pressed': String(filters.kind === kind), dataset: { focusKey: `kind:${kind}` } },
      kind === 'all' ? 'All' : (KIND_LABELS[kind] ?? kind),
      h('span', { class: 'count', text: String(count) }),
    );
    button.addEventListener('click', () => {
      filters.kind = kind;
      for (const other of button.parentElement.children) other.setAttribute('aria-pressed', String(other === button));
      onChange();
    });
    return button;
  });
  const search = h('input', {
    type: 'search',
    id: 'capability-filter',
    value: filters.text,
    placeholder: 'Filter: name, id, description, plugin',
    spellcheck: 'false',
    dataset: { focusKey: 'filter' },
  });
  search.addEventListener('input', () => {
    filters.text = search.value;
    onChange();
  });
  const scopeControl =
    project === null
      ? h('p', { class: 'scope-note', text: 'Switches set the global default: every project that has no setting of its own.' })
      : h(
          'fieldset',
          { class: 'scope' },
          h('legend', { text: 'Switches apply to' }),
          /** @type {[string, string, string][]} */ ([
            ['project', 'This project', `Write ${baseName(project)}'s own setting`],
            ['global', 'Every project', 'Write the global default: every project without its own setting'],
          ]).map(([value, text, title]) => {
            const input = h('input', { type: 'radio', name: 'switch-scope', value, checked: filters.scope === value, title });
            input.addEventListener('change', () => {
              filters.scope = value;
              void context.refresh();
            });
            return h('label', { class: 'segment' }, input, h('span', { text }));
          }),
        );
  return h(
    'div',
    { class: 'toolbar' },
    h('div', { class: 'chips', role: 'group', 'aria-label': 'Show kinds' }, kindButtons),
    h(
      'div',
      { class: 'toolbar-right' },
      h('label', { class: 'visually-hidden', for: 'capability-filter', text: 'Filter capabilities' }),
      search,
      scopeControl,
    ),
  );
}
