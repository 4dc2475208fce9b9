// One capability's row: its switch, name, source, why it is on or off, its gates, and its actions.
// A copy another copy shadows gets a row of its own, movable but not switchable.

import { rpc } from '../../api.js';
import { h } from '../../dom.js';
import { liftHoldButton } from '../../holdActions.js';
import { decidedBy, heldReason } from './labels.js';
import { landing, moveActions } from './moves.js';

/**
 * What the rows share with the view around them.
 * @typedef {{ context: any, project: string | null, scope: string, describe(path: string): string, usageOf(kind: string, id: string): any }} RowView
 */

/** Who provides a capability: the owner, or a plugin by name. */
export function sourceBadge(plugin) {
  return plugin === null
    ? h('span', { class: 'source owner', text: 'owner' })
    : h(
        'span',
        { class: 'source plugin', title: `provided by the plugin ${plugin}` },
        h('span', { class: 'visually-hidden', text: 'plugin ' }),
        plugin,
      );
}

/** @param {RowView} view */
export function renderShadowRow(item, view) {
  const winner = item.shadowedBy;
  const by = winner.level === 'project' ? 'the project’s copy' : winner.plugin === null ? 'the owner’s copy' : `${winner.plugin}’s copy`;
  const description = view.describe(item.path);
  return h(
    'li',
    {
      class: 'row is-shadowed',
      dataset: { kind: item.kind, id: item.id, level: item.level, plugin: item.plugin ?? '', shadowed: 'true', state: 'shadowed' },
    },
    h(
      'div',
      { class: 'row-switch' },
      h('span', { class: 'switch-placeholder', title: 'Not switchable: the copy that wins decides', 'aria-hidden': 'true' }),
    ),
    h(
      'div',
      { class: 'row-main' },
      h(
        'div',
        { class: 'row-title' },
        h('span', { class: 'name', text: item.name }),
        h('code', { class: 'id', text: item.id }),
        sourceBadge(item.plugin),
      ),
      description === '' ? null : h('p', { class: 'description', text: description }),
      h(
        'div',
        { class: 'row-meta' },
        h('span', { class: 'why off' }, h('span', { class: 'visually-hidden', text: 'Why: ' }), `Not in sessions · shadowed by ${by}`),
      ),
    ),
    h('div', { class: 'row-actions' }, moveActions(item, view)),
  );
}

/** @param {RowView} view */
export function renderRow(entry, view) {
  const label = `${entry.kind} ${entry.name}`;
  const key = `${entry.kind}/${entry.id}`;
  const description = view.describe(entry.path);
  // Held is a state of its own: switched on, yet it does not run, so the switch must not look on.
  const held = entry.held !== null && entry.held !== undefined;
  const toggle = h(
    'button',
    {
      type: 'button',
      role: 'switch',
      class: `switch${held ? ' held' : ''}`,
      'aria-checked': String(entry.enabled),
      'aria-label': `${label}: ${held ? 'held, switched on but not running' : entry.enabled ? 'on' : 'off'}`,
      dataset: { focusKey: `switch:${key}` },
      title: held ? `Held: ${entry.held}. Click to switch it off` : entry.enabled ? 'On: click to turn off' : 'Off: click to turn on',
    },
    h('span', { class: 'knob', 'aria-hidden': 'true' }),
  );
  toggle.addEventListener(
    'click',
    () => void setState(toggle, entry, { enabled: !entry.enabled }, `Turned ${entry.name} ${entry.enabled ? 'off' : 'on'}`, view),
  );

  const why = h(
    'span',
    { class: `why ${held ? 'held' : entry.enabled ? 'on' : 'off'}`, title: entry.held ?? `decided by: ${entry.decidedBy}` },
    h('span', { class: 'visually-hidden', text: 'Why: ' }),
    held ? `Held · ${heldReason(entry.decidedBy)}` : `${entry.enabled ? 'On' : 'Off'} · ${decidedBy(entry.decidedBy)}`,
  );
  const gates = Object.entries(entry.gates ?? {}).map(([gate, value]) => {
    const button = h(
      'button',
      {
        type: 'button',
        class: `gate${value.configured ? ' configured' : ''}${value.active ? ' active' : ''}`,
        'aria-pressed': String(value.configured),
        'aria-label': `Gate ${gate} of ${entry.name}: ${value.configured ? 'on' : 'off'}${value.active || !value.configured ? '' : ', inactive while the capability is off'} (${decidedBy(value.decidedBy)})`,
        title: `Gate ${gate}: ${value.configured ? 'on' : 'off'}, from ${decidedBy(value.decidedBy)}`,
        dataset: { focusKey: `gate:${key}:${gate}` },
      },
      h('span', { class: 'gate-dot', 'aria-hidden': 'true' }),
      `${gate}`,
      h('span', { class: 'gate-value', text: value.configured ? 'on' : 'off' }),
    );
    button.addEventListener(
      'click',
      () =>
        void setState(
          button,
          entry,
          { gates: { [gate]: value.configured ? 'off' : 'on' } },
          `Gate ${gate} of ${entry.name} turned ${value.configured ? 'off' : 'on'}`,
          view,
        ),
    );
    return button;
  });
  const dead = entry.enabled && entry.active === false;
  const used = view.usageOf(entry.kind, entry.id);
  const usage = usageNote(used);
  const listing = listingNote(used);
  const shadowed = (entry.shadowed ?? []).length;

  return h(
    'li',
    {
      class: `row${held ? ' is-held' : entry.enabled ? '' : ' is-off'}${landing.key === key ? ' just-moved' : ''}`,
      dataset: {
        kind: entry.kind,
        id: entry.id,
        level: entry.level,
        plugin: entry.plugin ?? '',
        state: held ? 'held' : entry.enabled ? 'on' : 'off',
      },
    },
    h('div', { class: 'row-switch' }, toggle),
    h(
      'div',
      { class: 'row-main' },
      h(
        'div',
        { class: 'row-title' },
        h('span', { class: 'name', text: entry.name }),
        h('code', { class: 'id', text: entry.id }),
        sourceBadge(entry.plugin),
      ),
      description === '' ? null : h('p', { class: 'description', text: description }),
      h(
        'div',
        { class: 'row-meta' },
        why,
        usage,
        listing,
        dead && !held ? h('span', { class: 'warning', text: 'every gate is off: present but dead' }) : null,
        shadowed === 0
          ? null
          : h('span', {
              class: 'shadow',
              title: entry.shadowed
                .map((copy) => `${copy.level}${copy.plugin === null ? '' : ` (${copy.plugin})`}: ${copy.path}`)
                .join('\n'),
              text: `wins over ${shadowed} other ${shadowed === 1 ? 'copy' : 'copies'}`,
            }),
        gates.length === 0
          ? null
          : h(
              'span',
              { class: 'gates', role: 'group', 'aria-label': `Gates of ${entry.name}` },
              h('span', { class: 'gates-label', 'aria-hidden': 'true', text: 'gates' }),
              gates,
            ),
      ),
    ),
    h('div', { class: 'row-actions' }, held ? liftHoldButton(entry, view.context) : null, moveActions(entry, view)),
  );
}

/**
 * The row's Usage: how often the agents used it in the ledger's window and when last, or that
 * they did not; nothing while the ledger has not answered or for a kind it does not count.
 */
/**
 * Where a runtime's prompt does not describe a skill (by name only, or not listed, as the ledger's
 * report has it from the listing-budget planner): the agent can hardly choose it, whatever its use.
 */
function listingNote(used) {
  const short = (used?.listed ?? []).filter((listed) => listed.status !== 'described');
  if (short.length === 0) return null;
  const text = short.map((listed) => `${listed.status === 'name-only' ? 'by name only' : 'not listed'} in ${listed.client}`).join(', ');
  return h('span', {
    class: 'usage-listing',
    title: 'Over the runtime’s listing budget: pin it (loadout budget pin NAME) or shorten its description',
    text: `Listed ${text}`,
  });
}

function usageNote(used) {
  if (used === undefined) return null;
  if (used === null || used.invoked === 0)
    return h('span', { class: 'usage unused', title: 'Not used by any agent in the last 30 days (loadout usage)', text: 'Unused' });
  const failed = used.failed === 0 ? '' : `, ${used.failed} failed`;
  return h('span', {
    class: 'usage used',
    title: `Used by ${used.runtimes.map((runtime) => runtime.runtime).join(', ')}; last ${used.lastUsed}`,
    text: `Used ${used.invoked}×${failed} · last ${used.lastUsed.slice(0, 10)}`,
  });
}

/** Writes one change of a switch or a gate at the level the view's scope names, then re-reads. */
async function setState(control, entry, change, done, { context, project, scope }) {
  const target = scope === 'project' ? project : null;
  // One change at a time per control: a double click must not send the opposite request.
  if (control.getAttribute('aria-busy') === 'true') return;
  control.setAttribute('aria-busy', 'true');
  try {
    const result = await rpc('capability.set', { project: target, capabilities: [{ kind: entry.kind, id: entry.id, ...change }] });
    const errors = result?.errors ?? [];
    if (errors.length > 0) {
      context.fail(`Could not change ${entry.kind} ${entry.name}`, new Error(errors.map((error) => error.message).join('; ')));
    } else {
      const warnings = result?.warnings ?? [];
      const overridden = target === null && project !== null && entry.decidedBy === 'project-override' && change.enabled !== undefined;
      context.notify(
        [
          done + (target === null ? ' for every project' : ' for this project'),
          ...warnings,
          overridden ? 'This project keeps its own setting, which still decides here.' : null,
        ]
          .filter(Boolean)
          .join('. '),
      );
    }
  } catch (error) {
    context.fail(`Could not change ${entry.kind} ${entry.name}`, error);
  }
  await context.refresh();
}
