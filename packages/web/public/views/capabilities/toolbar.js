// The controls above the capability lists: a search (`/` focuses it), which kinds, which states,
// grouping by level or by plugin, and where switches write.

import { baseName, h } from '../../dom.js';
import { KIND_LABELS } from './labels.js';
import { STATES, USAGE_CHOICES } from './model.js';

/** Filters kept while the screen is open, so a re-render after a change keeps the owner's place. */
export const filters = { kind: 'all', state: 'all', text: '', scope: 'project', grouping: 'level', usage: 'all' };

const STATE_LABELS = { all: 'Any state', on: 'On', off: 'Off', held: 'Held', shadowed: 'Shadowed' };
const USAGE_LABELS = { all: 'Any use', used: 'Used', unused: 'Unused' };

/** `onChange` redraws the lists only; the scope re-reads the view. */
export function toolbar({ model, project, context, onChange }) {
  const kindCounts = new Map();
  for (const entry of model.visible) kindCounts.set(entry.kind, (kindCounts.get(entry.kind) ?? 0) + 1);
  const kindChips = chipGroup(
    'Show kinds',
    'kind',
    ['all', ...model.kinds].map((kind) => [
      kind,
      kind === 'all' ? 'All' : (KIND_LABELS[kind] ?? kind),
      kind === 'all' ? model.visible.length : (kindCounts.get(kind) ?? 0),
    ]),
    onChange,
  );
  const stateChips = chipGroup(
    'Show states',
    'state',
    ['all', ...STATES].map((state) => [state, STATE_LABELS[state], state === 'all' ? model.rows.length : model.stateCounts[state]]),
    onChange,
  );
  // Counted once the ledger answers; drawn at once so the toolbar does not move when it does.
  const usageChips = chipGroup(
    'Show by use in the last 30 days',
    'usage',
    ['all', ...USAGE_CHOICES].map((choice) => [choice, USAGE_LABELS[choice], null]),
    onChange,
  );
  const search = h('input', {
    type: 'search',
    id: 'capability-filter',
    value: filters.text,
    placeholder: 'Search: name, id, description, plugin  ( / )',
    spellcheck: 'false',
    autocomplete: 'off',
    'aria-keyshortcuts': '/',
    dataset: { focusKey: 'filter' },
  });
  search.addEventListener('input', () => {
    filters.text = search.value;
    onChange();
  });
  const grouping = segmented('Group by', 'capability-grouping', [
    ['level', 'Level', 'Group by level: the project in view, then global'],
    ['plugin', 'Plugin', 'Group by who provides it: the project, the owner, each plugin'],
  ]);
  for (const input of grouping.querySelectorAll('input'))
    input.addEventListener('change', () => {
      filters.grouping = /** @type {HTMLInputElement} */ (input).value;
      onChange();
    });
  const scopeControl =
    project === null
      ? h('p', { class: 'scope-note', text: 'Switches set the global default: every project that has no setting of its own.' })
      : segmented('Switches apply to', 'switch-scope', [
          ['project', 'This project', `Write ${baseName(project)}'s own setting`],
          ['global', 'Every project', 'Write the global default: every project without its own setting'],
        ]);
  for (const input of scopeControl.querySelectorAll('input'))
    input.addEventListener('change', () => {
      filters.scope = /** @type {HTMLInputElement} */ (input).value;
      void context.refresh();
    });
  return h(
    'div',
    { class: 'toolbar capability-toolbar' },
    h(
      'div',
      { class: 'toolbar-search' },
      h('label', { class: 'visually-hidden', for: 'capability-filter', text: 'Search capabilities' }),
      search,
    ),
    h('div', { class: 'toolbar-filters' }, kindChips, stateChips, usageChips),
    h('div', { class: 'toolbar-right' }, grouping, scopeControl),
  );
}

/** Toggle chips that set `filters[key]`, one pressed at a time. */
function chipGroup(label, key, choices, onChange) {
  const group = h('div', { class: 'chips', role: 'group', 'aria-label': label, dataset: { filter: key } });
  for (const [value, text, count] of choices) {
    const button = h(
      'button',
      { type: 'button', class: 'chip', 'aria-pressed': String(filters[key] === value), dataset: { focusKey: `${key}:${value}`, value } },
      text,
      count === null ? null : h('span', { class: 'count', text: String(count) }),
    );
    button.addEventListener('click', () => {
      filters[key] = value;
      for (const other of group.children) other.setAttribute('aria-pressed', String(other === button));
      onChange();
    });
    group.append(button);
  }
  return group;
}

/** A two-way choice drawn as one control; `name` is the radios' name and the value kept in `filters`. */
function segmented(legend, name, choices) {
  const key = name === 'switch-scope' ? 'scope' : 'grouping';
  return h(
    'fieldset',
    { class: 'scope' },
    h('legend', { text: legend }),
    choices.map(([value, text, title]) =>
      h(
        'label',
        { class: 'segment' },
        h('input', { type: 'radio', name, value, checked: filters[key] === value, title }),
        h('span', { text }),
      ),
    ),
  );
}

let slashInstalled = false;

/** `/` anywhere outside a text field or a dialog puts focus in the capability search. */
export function installSlashToSearch() {
  if (slashInstalled) return;
  slashInstalled = true;
  document.addEventListener('keydown', (event) => {
    if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = /** @type {HTMLElement | null} */ (event.target instanceof HTMLElement ? event.target : null);
    if (target?.closest('input, textarea, select, [contenteditable], dialog') || document.querySelector('dialog[open]')) return;
    const search = document.getElementById('capability-filter');
    if (!(search instanceof window.HTMLInputElement)) return;
    event.preventDefault();
    search.focus();
    search.select();
  });
}
