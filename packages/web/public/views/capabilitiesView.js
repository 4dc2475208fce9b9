// Capabilities by kind, grouped by level: the project in view, then Global (the owner's own and
// every enabled plugin's). Each row: name, description, source, the on/off switch, its gates, why
// it is on or off, and for the owner's skills and servers the move between levels.

import { request, rpc } from '../api.js';
import { field, openDialog } from '../dialogs.js';
import { baseName, focusByKey, focusKeyOf, h, replaceChildren, uniqueId } from '../dom.js';
import { liftHoldButton } from '../holdActions.js';
import { recentProjects } from '../recentProjects.js';

const KIND_LABELS = {
  skill: 'Skills',
  affordance: 'Affordances',
  notification: 'Notification catalogues',
  server: 'MCP servers',
  task: 'Tasks',
};

/**
 * The RPC that moves each movable kind between levels.
 * @type {Readonly<Record<string, 'skills.transfer' | 'mcp.transfer'>>}
 */
const TRANSFER_METHOD = { skill: 'skills.transfer', server: 'mcp.transfer' };
/**
 * The RPC that lists every record of a movable kind, descriptions included, on or off.
 * @type {Readonly<Record<string, 'skills.list' | 'mcp.list'>>}
 */
const LIST_METHOD = { skill: 'skills.list', server: 'mcp.list' };

/** Why a capability is on or off, in the owner's words, by the substrate that decided it. */
const DECIDED_BY = {
  'declared-default': 'by default',
  'global-default': 'set for every project',
  'project-override': 'set for this project',
  'plugin-disabled': 'its plugin is disabled',
  'plugin-not-installed': 'its plugin is not installed',
  'project-config': "this project's config.json",
  'global-config': "the owner's config.json",
  'untrusted-project': 'held: the project is not trusted',
  'unapproved-plugin': 'held: not approved',
};

/** Filters kept while the screen is open, so a re-render after a change keeps the owner's place. */
const filters = { kind: 'all', text: '', scope: 'project' };
/** The row to point at after the next render (a moved capability under its new id). */
let highlight = null;

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
  const hiddenByPlugin = entries.length - visible.length;
  const kinds = [...new Set(entries.map((entry) => entry.kind))];
  if (filters.kind !== 'all' && !kinds.includes(filters.kind)) filters.kind = 'all';
  const scope = project === null ? 'global' : filters.scope;

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

  /** The copies a winner sets aside, as rows of their own level: visible, movable, not switchable. */
  const shadowsOf = (entry) =>
    (entry.shadowed ?? []).map((copy) => {
      const record = listed.get(copy.path);
      return {
        shadowedBy: entry,
        kind: entry.kind,
        id: record?.id ?? entry.id,
        name: record?.name ?? entry.name,
        path: copy.path,
        level: copy.level,
        plugin: copy.plugin,
      };
    });

  const renderKinds = () => {
    const shown = kinds.filter((kind) => filters.kind === 'all' || filters.kind === kind);
    return shown.map((kind) => {
      const ofKind = visible.filter((entry) => entry.kind === kind && matches(entry));
      const items = [...ofKind, ...ofKind.flatMap(shadowsOf)].sort(
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
        h(
          'h2',
          { id: headingId },
          KIND_LABELS[kind] ?? `${kind[0].toUpperCase()}${kind.slice(1)}s`,
          h('span', { class: 'count', text: String(ofKind.length) }),
        ),
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
            group.items.map((item) => (item.shadowedBy ? renderShadowRow(item) : renderRow(item))),
          ),
    );
  };

  const renderShadowRow = (item) => {
    const winner = item.shadowedBy;
    const by = winner.level === 'project' ? 'the project’s copy' : winner.plugin === null ? 'the owner’s copy' : `${winner.plugin}’s copy`;
    return h(
      'li',
      {
        class: 'row is-shadowed',
        dataset: { kind: item.kind, id: item.id, level: item.level, plugin: item.plugin ?? '', shadowed: 'true' },
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
        describe(item.path) === '' ? null : h('p', { class: 'description', text: describe(item.path) }),
        h(
          'div',
          { class: 'row-meta' },
          h('span', { class: 'why off' }, h('span', { class: 'visually-hidden', text: 'Why: ' }), `Not in sessions · shadowed by ${by}`),
        ),
      ),
      h('div', { class: 'row-actions' }, moveActions(item)),
    );
  };

  const renderRow = (entry) => {
    const label = `${entry.kind} ${entry.name}`;
    const key = `${entry.kind}/${entry.id}`;
    const description = describe(entry.path);
    const toggle = h(
      'button',
      {
        type: 'button',
        role: 'switch',
        class: 'switch',
        'aria-checked': String(entry.enabled),
        'aria-label': `${label}: ${entry.enabled ? 'on' : 'off'}`,
        dataset: { focusKey: `switch:${key}` },
        title: entry.enabled ? 'On: click to turn off' : 'Off: click to turn on',
      },
      h('span', { class: 'knob', 'aria-hidden': 'true' }),
    );
    toggle.addEventListener(
      'click',
      () => void setState(toggle, entry, { enabled: !entry.enabled }, `Turned ${entry.name} ${entry.enabled ? 'off' : 'on'}`),
    );

    const why = h(
      'span',
      { class: `why ${entry.held ? 'held' : entry.enabled ? 'on' : 'off'}`, title: entry.held ?? `decided by: ${entry.decidedBy}` },
      h('span', { class: 'visually-hidden', text: 'Why: ' }),
      `${entry.enabled ? 'On' : 'Off'} · ${DECIDED_BY[entry.decidedBy] ?? entry.decidedBy}`,
    );
    const gates = Object.entries(entry.gates ?? {}).map(([gate, value]) => {
      const button = h(
        'button',
        {
          type: 'button',
          class: `gate${value.configured ? ' configured' : ''}${value.active ? ' active' : ''}`,
          'aria-pressed': String(value.configured),
          'aria-label': `Gate ${gate} of ${entry.name}: ${value.configured ? 'on' : 'off'}${value.active || !value.configured ? '' : ', inactive while the capability is off'} (${DECIDED_BY[value.decidedBy] ?? value.decidedBy})`,
          title: `Gate ${gate}: ${value.configured ? 'on' : 'off'}, from ${DECIDED_BY[value.decidedBy] ?? value.decidedBy}`,
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
          ),
      );
      return button;
    });
    const dead = entry.enabled && entry.active === false;
    const shadowed = (entry.shadowed ?? []).length;

    return h(
      'li',
      {
        class: `row${entry.enabled ? '' : ' is-off'}${highlight === key ? ' just-moved' : ''}`,
        dataset: { kind: entry.kind, id: entry.id, level: entry.level, plugin: entry.plugin ?? '' },
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
          dead && !entry.held ? h('span', { class: 'warning', text: 'every gate is off: present but dead' }) : null,
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
      h('div', { class: 'row-actions' }, entry.held ? liftHoldButton(entry, context) : null, moveActions(entry)),
    );
  };

  const moveActions = (entry) => {
    if (entry.plugin !== null || TRANSFER_METHOD[entry.kind] === undefined) return null;
    const key = `${entry.kind}/${entry.id}`;
    const actions = [];
    if (entry.level === 'project') {
      const toGlobal = h('button', {
        type: 'button',
        class: 'button small',
        text: 'Move to global',
        'aria-label': `Move ${entry.name} to global`,
        dataset: { focusKey: `move-global:${key}` },
      });
      toGlobal.addEventListener('click', () => void move(entry, { level: 'global' }));
      actions.push(toGlobal);
    }
    const toProject = h('button', {
      type: 'button',
      class: 'button small',
      text: 'Move to project…',
      'aria-label': `Move ${entry.name} to a project`,
      dataset: { focusKey: `move-project:${key}` },
    });
    toProject.addEventListener('click', () => void chooseProjectAndMove(entry));
    actions.push(toProject);
    return actions;
  };

  const setState = async (control, entry, change, done) => {
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
  };

  // A global end may name the project in view: the state carried is the one this view showed.
  /** @returns {import('../../types/wire.js').TransferEnd} */
  const endOf = (entry) =>
    entry.level === 'project' || project !== null ? { level: entry.level, projectPath: project } : { level: 'global' };

  /** Moves and says where it landed; throws when the server refuses. */
  const transfer = async (entry, to) => {
    const method = TRANSFER_METHOD[entry.kind];
    if (method === undefined) throw new Error(`A ${entry.kind} does not move between levels.`);
    const answer = await rpc(method, { id: entry.id, from: endOf(entry), to });
    const landed = answer.record;
    const landedId = typeof landed?.id === 'string' ? landed.id : entry.id;
    const where = to.level === 'global' ? 'Global' : `project ${baseName(to.projectPath)}`;
    const idChanged = landedId.toLowerCase() !== entry.id.toLowerCase();
    const nameChanged = typeof landed?.name === 'string' && landed.name !== entry.name;
    const parts = [answer?.moved === false ? `${entry.name} is already there` : `Moved ${entry.name} to ${where}`];
    if (idChanged) parts.push(`"${entry.id}" was taken there, so it landed as "${landedId}"`);
    if (nameChanged) parts.push(`it is now named "${landed?.name}"`);
    if (to.level === 'project' && to.projectPath !== project) parts.push('open that project to see it');
    context.notify(`${[parts.join('; '), ...(answer?.warnings ?? [])].join('. ')}.`);
    highlight = `${entry.kind}/${landedId}`;
  };

  /** Shows the lists as they are after a move, with focus on the moved row when it is in view. */
  const showMoved = async () => {
    await context.refresh();
    const moved = document.querySelector('.row.just-moved .switch');
    if (moved instanceof HTMLElement) moved.focus();
    highlight = null;
  };

  const move = async (entry, to) => {
    try {
      await transfer(entry, to);
    } catch (error) {
      context.fail(`Could not move ${entry.kind} ${entry.name}`, error);
    }
    await showMoved();
  };

  const chooseProjectAndMove = async (entry) => {
    const here = entry.level === 'project' ? project : null;
    const choices = [...new Set([project, ...recentProjects()].filter((dir) => dir !== null && dir !== here))];
    const name = uniqueId('dest');
    const typed = h('input', { name: 'typed', type: 'text', spellcheck: 'false', autocomplete: 'off', placeholder: '/path/to/project' });
    const radios = choices.map((dir, index) =>
      h(
        'label',
        { class: 'choice' },
        h('input', { type: 'radio', name, value: dir, checked: index === 0 }),
        h('span', { class: 'choice-name', text: baseName(dir) }),
        h('span', { class: 'choice-path', text: dir }),
      ),
    );
    const moved = await openDialog({
      title: `Move ${entry.name} to a project`,
      body: [
        h('p', {
          text: `The ${entry.kind === 'server' ? 'server definition' : 'skill'} moves, with its state; no copy stays behind. If the project already has one under the same id or name, the arriving one is renamed.`,
        }),
        radios.length === 0 ? null : h('fieldset', { class: 'choices' }, h('legend', { text: 'Recent projects' }), radios),
        field(
          radios.length === 0 ? 'Project folder' : 'Or another project folder',
          typed,
          'The folder an agent works in; its .agents/ folder is created if needed.',
        ),
      ],
      submitLabel: 'Move',
      onSubmit: async (form) => {
        /** @type {HTMLInputElement | null} */
        const chosen = form.querySelector(`input[name="${name}"]:checked`);
        const picked = typed.value.trim() !== '' ? typed.value.trim() : (chosen?.value ?? '');
        if (picked === '') throw new Error('Choose a project or type its folder.');
        await transfer(entry, { level: 'project', projectPath: picked });
      },
    });
    if (moved) await showMoved();
  };

  // The controls above the lists: which kinds, a text filter, and where switches write.
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
      rerender();
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
    rerender();
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
    h(
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
    ),
    hiddenByPlugin === 0
      ? null
      : h(
          'p',
          { class: 'note' },
          `${hiddenByPlugin} ${hiddenByPlugin === 1 ? 'capability' : 'capabilities'} of disabled plugins ${hiddenByPlugin === 1 ? 'is' : 'are'} not in any session. `,
          h('a', { href: '#plugins', text: 'Plugins' }),
        ),
    diagnostics(session),
    list,
  );
}

/** Records by document path, from the session (what is on) and the listings (every copy, on or off). */
function recordsByPath(session, lists) {
  const byPath = new Map();
  const add = (record) => {
    if (record !== null && typeof record === 'object' && typeof record.path === 'string' && typeof record.id === 'string')
      byPath.set(record.path, record);
  };
  for (const value of Object.values(session ?? {})) if (Array.isArray(value)) value.forEach(add);
  for (const list of lists) if (Array.isArray(list)) list.forEach(add);
  return byPath;
}

/** Who provides a capability: the owner, or a plugin by name. */
function sourceBadge(plugin) {
  return plugin === null
    ? h('span', { class: 'source owner', text: 'owner' })
    : h(
        'span',
        { class: 'source plugin', title: `provided by the plugin ${plugin}` },
        h('span', { class: 'visually-hidden', text: 'plugin ' }),
        plugin,
      );
}

function compareIds(a, b) {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  return left < right ? -1 : left > right ? 1 : 0;
}

function diagnostics(session) {
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

function needsToken(context) {
  const button = h('button', { type: 'button', class: 'button primary', text: 'Enter the server token' });
  button.addEventListener('click', () => void context.askForToken());
  return h('div', { class: 'panel empty-state' }, h('p', { text: 'Capability state is read and changed with the server token.' }), button);
}
