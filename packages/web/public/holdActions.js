// A capability held by trust (a project's own task or server, a plugin's not yet approved): the
// line that says why, and the one action that lifts the hold: "Approve" for a plugin's, which
// approves what the plugin runs now, "Trust project" for a project's own.

import { request } from './api.js';
import { openDialog } from './dialogs.js';
import { baseName, h } from './dom.js';

/**
 * @typedef {{ kind: string, id: string, name: string, plugin: string | null }} HeldItem
 * @typedef {{ project: string | null, notify(message: string): void, fail(what: string, error: unknown): void, refresh(): Promise<void> | void }} HoldContext
 */

/** "Held · why", for a row's meta line. @param {string} reason */
export function heldNotice(reason) {
  return h('span', { class: 'held', title: reason }, h('span', { class: 'visually-hidden', text: 'Why: ' }), `Held · ${reason}`);
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
  button.addEventListener('click', () => {
    const body =
      plugin === null
        ? [
            h('p', {
              text: `Every task and MCP server in ${project ?? 'this project'}/.agents will be able to run, as it is now and as it changes.`,
            }),
          ]
        : [
            h('p', { text: `Every task and MCP server of plugin ${plugin} will be able to run as it is now.` }),
            h('p', {
              text: `A later update that changes what one of them runs holds it again; \`loadout plugins diff ${plugin}\` shows the change.`,
            }),
          ];
    void openDialog({
      title: plugin === null ? `Trust ${baseName(project ?? '')}?` : `Approve ${plugin}?`,
      body,
      submitLabel: plugin === null ? 'Trust' : 'Approve',
      onSubmit: async () => {
        if (plugin === null) await request('POST /api/trust', { body: { project: project ?? '' } });
        else await request('POST /api/plugins/:name/approve', { params: { name: plugin } });
      },
    }).then((done) => {
      if (!done) return;
      context.notify(
        plugin === null ? `Trusted ${project ?? ''}: its tasks and servers can run.` : `Approved ${plugin}: its tasks and servers can run.`,
      );
      void context.refresh();
    });
  });
  return button;
}
