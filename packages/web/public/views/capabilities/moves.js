// Moving the owner's skills and servers between levels: the row's buttons, the project chooser,
// and the status line that says where a capability landed.

import { rpc } from '../../api.js';
import { field, openDialog } from '../../dialogs.js';
import { baseName, h, uniqueId } from '../../dom.js';
import { recentProjects } from '../../recentProjects.js';
import { TRANSFER_METHOD } from './labels.js';

/** The row to point at after the next render (a moved capability under its new id). */
export const landing = { key: /** @type {string | null} */ (null) };

/**
 * The move buttons of an owner's skill or server; null for anything that does not move.
 * `view` is what the capabilities view shares with its rows: `{ context, project }`.
 */
export function moveActions(entry, view) {
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
    toGlobal.addEventListener('click', () => void move(entry, { level: 'global' }, view));
    actions.push(toGlobal);
  }
  const toProject = h('button', {
    type: 'button',
    class: 'button small',
    text: 'Move to project…',
    'aria-label': `Move ${entry.name} to a project`,
    dataset: { focusKey: `move-project:${key}` },
  });
  toProject.addEventListener('click', () => void chooseProjectAndMove(entry, view));
  actions.push(toProject);
  return actions;
}

// A global end may name the project in view: the state carried is the value this view showed.
/** @returns {import('../../../types/wire.js').TransferEnd} */
function endOf(entry, project) {
  return entry.level === 'project' || project !== null ? { level: entry.level, projectPath: project } : { level: 'global' };
}

/** Moves and says where it landed; throws when the server refuses. */
async function transfer(entry, to, { context, project }) {
  const method = TRANSFER_METHOD[entry.kind];
  if (method === undefined) throw new Error(`A ${entry.kind} does not move between levels.`);
  const answer = await rpc(method, { id: entry.id, from: endOf(entry, project), to });
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
  landing.key = `${entry.kind}/${landedId}`;
}

/** Shows the lists as they are after a move, with focus on the moved row when it is in view. */
async function showMoved(context) {
  await context.refresh();
  const moved = document.querySelector('.row.just-moved .switch');
  if (moved instanceof HTMLElement) moved.focus();
  landing.key = null;
}

async function move(entry, to, view) {
  try {
    await transfer(entry, to, view);
  } catch (error) {
    view.context.fail(`Could not move ${entry.kind} ${entry.name}`, error);
  }
  await showMoved(view.context);
}

async function chooseProjectAndMove(entry, view) {
  const project = view.project;
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
      await transfer(entry, { level: 'project', projectPath: picked }, view);
    },
  });
  if (moved) await showMoved(view.context);
}
