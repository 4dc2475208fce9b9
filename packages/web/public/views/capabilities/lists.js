// The capability lists: a section per kind, groups by level or by plugin, and rows drawn a page
// at a time. A group draws its first page; the rest come when its "Show more" button nears the
// screen (or is pressed), so 10,000 capabilities cost about as much to draw as 100.

import { baseName, h, uniqueId } from '../../dom.js';
import { kindLabel } from './labels.js';
import { renderRow, renderShadowRow } from './rows.js';

/** Rows drawn at once per group: a tall screen's worth, and little work per keystroke. */
export const PAGE_SIZE = 30;

/**
 * How many rows each group had drawn, by kind and group: a re-read after a switch keeps what the
 * owner had scrolled to (and the focused row) on screen. A change of filter starts again.
 */
const drawnBefore = new Map();

export function forgetDrawnPages() {
  drawnBefore.clear();
}

/** How to group rows, and each group's heading. */
function groupsOf(rows, grouping, project) {
  if (grouping === 'plugin') {
    const bySource = new Map();
    for (const row of rows) {
      if (!bySource.has(row.source)) bySource.set(row.source, []);
      bySource.get(row.source).push(row);
    }
    const order = (key) => (key === 'project' ? 0 : key === 'owner' ? 1 : 2);
    return [...bySource.keys()]
      .sort((a, b) => order(a) - order(b) || a.localeCompare(b))
      .map((key) => ({
        key,
        level: key === 'project' ? 'Project' : key === 'owner' ? 'Owner' : 'Plugin',
        name: key === 'project' ? baseName(project ?? '') : key.startsWith('plugin:') ? key.slice('plugin:'.length) : '',
        detail: key === 'project' ? (project ?? '') : key === 'owner' ? 'the owner’s capabilities repository' : 'a plugin’s clone',
        rows: bySource.get(key),
      }));
  }
  const groups = [];
  if (project !== null)
    groups.push({
      key: 'project',
      level: 'Project',
      name: baseName(project),
      detail: project,
      rows: rows.filter((row) => row.level === 'project'),
    });
  groups.push({
    key: 'global',
    level: 'Global',
    name: '',
    detail: 'the owner’s capabilities and enabled plugins',
    rows: rows.filter((row) => row.level !== 'project'),
  });
  return groups;
}

/**
 * The sections for `rows` (already filtered). `view` is what rows need (see rows.js);
 * `observer` draws the next page of a group whose "Show more" nears the screen.
 */
export function renderKinds(rows, { kinds, kindFilter, grouping, filtered, project, view, observer }) {
  const shown = kinds.filter((kind) => kindFilter === 'all' || kindFilter === kind);
  return shown.map((kind) => {
    const ofKind = rows.filter((row) => row.kind === kind);
    const headingId = uniqueId('kind');
    return h(
      'section',
      { class: 'kind', 'aria-labelledby': headingId, dataset: { kind } },
      h(
        'h2',
        { id: headingId },
        kindLabel(kind),
        h('span', { class: 'count', text: String(ofKind.filter((row) => row.state !== 'shadowed').length) }),
      ),
      groupsOf(ofKind, grouping, project).map((group) => renderGroup(group, `${kind}/${group.key}`, { filtered, view, observer })),
    );
  });
}

function renderGroup(group, drawnKey, { filtered, view, observer }) {
  const headingId = uniqueId('group');
  const empty = group.rows.length === 0;
  const heading = h(
    'h3',
    { id: headingId, title: group.detail },
    h('span', { class: 'level-label', text: group.level }),
    group.name === '' ? null : h('span', { class: 'group-name', text: group.name }),
    empty
      ? h('span', { class: 'group-detail', text: filtered ? 'nothing matches here' : 'nothing at this level' })
      : h('span', { class: 'count', text: String(group.rows.length) }),
  );
  const box = h('div', { class: `group${empty ? ' is-empty' : ''}`, dataset: { group: group.key } }, heading);
  if (empty) return box;
  const list = h('ul', { class: 'rows', 'aria-labelledby': headingId });
  box.append(list);
  let drawn = 0;
  const more = h('button', { type: 'button', class: 'button small quiet more', dataset: { focusKey: `more:${group.key}` } });
  const moreRow = h('li', { class: 'more-row' }, more);
  const drawPage = (size = PAGE_SIZE) => {
    const next = group.rows.slice(drawn, drawn + size);
    drawn += next.length;
    drawnBefore.set(drawnKey, drawn);
    const fragment = document.createDocumentFragment();
    for (const row of next) fragment.append(row.item.shadowedBy ? renderShadowRow(row.item, view) : renderRow(row.item, view));
    list.insertBefore(fragment, moreRow.isConnected ? moreRow : null);
    const left = group.rows.length - drawn;
    if (left === 0) {
      observer.unobserve(more);
      moreRow.remove();
      return;
    }
    more.textContent = `Show ${Math.min(left, PAGE_SIZE)} more (${left} not shown)`;
    if (!moreRow.isConnected) list.append(moreRow);
    // Observing anew reports where it is now: still near the screen draws the next page too.
    observer.unobserve(more);
    observer.observe(more);
  };
  more.addEventListener('click', () => {
    const hadFocus = document.activeElement === more;
    const first = drawn;
    drawPage();
    // A keyboard user who pressed it lands on the first row it drew.
    if (hadFocus) /** @type {HTMLElement | null} */ (list.children[first]?.querySelector('button'))?.focus();
  });
  drawPage(Math.max(PAGE_SIZE, drawnBefore.get(drawnKey) ?? 0));
  return box;
}

/** Draws a group's next page when its "Show more" comes within a screen of the viewport. */
export function pageObserver() {
  return new window.IntersectionObserver(
    (seen) => {
      for (const entry of seen) if (entry.isIntersecting && entry.target instanceof HTMLElement) entry.target.click();
    },
    { rootMargin: '0px 0px 600px 0px' },
  );
}
