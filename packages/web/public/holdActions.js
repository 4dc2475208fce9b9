// A capability held by trust (a project's own task or server, a plugin's not yet approved): the
// line that says why, and the one action that lifts the hold: "Approve" for a plugin's, "Trust
// project" for a project's own, each after a dialog that lists what it lets run (consentDialog.js).

import { approvePluginWithConsent, trustProjectWithConsent } from './consentDialog.js';
import { h } from './dom.js';
import { prose } from './prose.js';

/**
 * @typedef {{ kind: string, id: string, name: string, plugin: string | null }} HeldItem
 * @typedef {{ project: string | null, notify(message: string): void, fail(what: string, error: unknown): void, refresh(): Promise<void> | void }} HoldContext
 */

/** "Held · why", for a row's meta line. @param {string} reason */
export function heldNotice(reason) {
  return h('span', { class: 'held', title: reason }, h('span', { class: 'visually-hidden', text: 'Why: ' }), 'Held · ', prose(reason));
}

/**
 * The button that lifts a hold, after a dialog that says what it lets run.
 * @param {HeldItem} item
 * @param {HoldContext} context
 */
export function liftHoldButton(item, context) {
  const plugin = item.plugin;
  const project = context.project;
  const label = plugin === null ? 'Trust project…' : 'Approve…';
  const button = h('button', {
    type: 'button',
    class: 'button small primary',
    text: label,
    'aria-label': `${plugin === null ? 'Trust the project of' : 'Approve'} ${item.name}`,
    dataset: { focusKey: `lift-hold:${item.kind}/${item.id}` },
  });
  button.addEventListener('click', async () => {
    let done;
    try {
      done = plugin === null ? await trustProjectWithConsent(project ?? '') : await approvePluginWithConsent(plugin);
    } catch (error) {
      context.fail(plugin === null ? 'Could not read what the project runs' : `Could not read what ${plugin} runs`, error);
      return;
    }
    if (!done) return;
    context.notify(
      plugin === null ? `Trusted ${project ?? ''}: its tasks and servers can run.` : `Approved ${plugin}: its tasks and servers can run.`,
    );
    void context.refresh();
  });
  return button;
}
