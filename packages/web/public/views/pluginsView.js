// Plugins: install from a git URL (with progress while git clones), update, enable, disable, and
// uninstall after a confirmation. A plugin is read where it is cloned; nothing is copied.

import { request, rpc } from '../api.js';
import { confirmAction, field } from '../dialogs.js';
import { h, relativeTime, replaceChildren, uniqueId } from '../dom.js';
import { marketplacesPanel } from './marketplacesPanel.js';

/** An install in progress, kept across re-renders so its progress stays on screen. */
/** The install in progress, kept across re-renders. @type {{ running: boolean, url: string, startedAt: number, timer: number | null }} */
const install = { running: false, url: '', startedAt: 0, timer: null };

export async function renderPlugins(container, context) {
  const [plugins, stateAnswer, marketplaces] = await Promise.all([
    request('GET /api/plugins'),
    // The list is useful without the counts: show it, and say why the counts are missing.
    context.hasToken()
      ? rpc('capability.state', { project: context.project }).catch((error) => {
          context.fail('Could not read which capabilities are on', error);
          return null;
        })
      : Promise.resolve(null),
    marketplacesPanel(context),
  ]);
  const list = Array.isArray(plugins) ? plugins : [];
  const entries = Array.isArray(stateAnswer) ? stateAnswer : (stateAnswer?.capabilities ?? null);

  replaceChildren(
    container,
    h(
      'div',
      { class: 'view-head' },
      h('h1', { text: 'Plugins' }),
      h('p', {
        class: 'lede',
        text: 'Git repositories cloned into plugins/ and read where they are. Disabling one takes its capabilities out of every new session.',
      }),
    ),
    installForm(context),
    marketplaces,
    list.length === 0
      ? h('p', { class: 'empty panel', text: 'No plugins installed yet.' })
      : h(
          'ul',
          { class: 'cards', 'aria-label': 'Installed plugins' },
          list.map((plugin) => pluginCard(plugin, entries, context)),
        ),
  );
}

function installForm(context) {
  const url = h('input', {
    name: 'url',
    type: 'text',
    required: true,
    spellcheck: 'false',
    autocomplete: 'off',
    placeholder: 'https://github.com/owner/repo.git or file:///path/to/repo',
    value: install.running ? install.url : '',
  });
  const name = h('input', { name: 'name', type: 'text', spellcheck: 'false', autocomplete: 'off', placeholder: 'from its plugin.json' });
  const ref = h('input', { name: 'ref', type: 'text', spellcheck: 'false', autocomplete: 'off', placeholder: 'default branch' });
  const submit = h('button', {
    type: 'submit',
    class: 'button primary',
    text: install.running ? 'Installing…' : 'Install',
    disabled: install.running,
    dataset: { focusKey: 'install' },
  });
  const progress = h(
    'div',
    { class: 'progress', id: 'install-progress', role: 'status', hidden: !install.running },
    h('progress', { 'aria-label': 'Installing' }),
    h('span', { class: 'progress-text', id: 'install-progress-text', text: progressText() }),
  );
  const form = h(
    'form',
    { class: 'panel install', 'aria-labelledby': 'install-title' },
    h('h2', { id: 'install-title', text: 'Install a plugin' }),
    h('div', { class: 'install-fields' }, field('Git URL', url), field('Name (optional)', name), field('Branch or tag (optional)', ref)),
    h('div', { class: 'form-actions' }, submit, progress),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!context.hasToken()) {
      void context.askForToken();
      return;
    }
    if (url.value.trim() === '') {
      context.fail('Could not install', new Error('give the plugin’s git URL'));
      url.focus();
      return;
    }
    void runInstall(context, { url: url.value.trim(), name: name.value.trim(), ref: ref.value.trim() });
  });
  return form;
}

function progressText() {
  if (!install.running) return '';
  const seconds = Math.round((Date.now() - install.startedAt) / 1000);
  return `Cloning ${install.url} and checking it… ${seconds} s`;
}

async function runInstall(context, { url, name, ref }) {
  Object.assign(install, { running: true, url, startedAt: Date.now() });
  install.timer = window.setInterval(() => {
    const text = document.getElementById('install-progress-text');
    if (text !== null) text.textContent = progressText();
  }, 1000);
  await context.refresh();
  try {
    const entry = await request('POST /api/plugins', { body: { url, ...(name === '' ? {} : { name }), ...(ref === '' ? {} : { ref }) } });
    context.notify(`Installed ${entry.name} at ${String(entry.commit).slice(0, 7)}. Its capabilities are in the next session.`);
  } catch (error) {
    context.fail(`Could not install ${url}`, error);
  } finally {
    window.clearInterval(install.timer ?? undefined);
    Object.assign(install, { running: false, url: '', timer: null });
  }
  await context.refresh();
}

function pluginCard(plugin, entries, context) {
  const headingId = uniqueId('plugin');
  const own = entries === null ? null : entries.filter((entry) => entry.plugin === plugin.name);
  const update = action(`Update ${plugin.name}`, 'Update', `update:${plugin.name}`, async () => {
    const result = await request('POST /api/plugins/:name/update', { params: { name: plugin.name } });
    const status = result?.status;
    context.notify(
      status === 'updated'
        ? `Updated ${plugin.name} from ${String(result.from).slice(0, 7)} to ${String(result.to).slice(0, 7)}.`
        : status === 'pinned'
          ? `${plugin.name} is pinned to a tag; update does not move it.`
          : `${plugin.name} is up to date.`,
    );
  });
  const toggle = action(
    `${plugin.enabled ? 'Disable' : 'Enable'} ${plugin.name}`,
    plugin.enabled ? 'Disable' : 'Enable',
    `toggle:${plugin.name}`,
    async () => {
      await request(plugin.enabled ? 'POST /api/plugins/:name/disable' : 'POST /api/plugins/:name/enable', {
        params: { name: plugin.name },
      });
      context.notify(
        plugin.enabled
          ? `Disabled ${plugin.name}: its capabilities leave new sessions.`
          : `Enabled ${plugin.name}: its capabilities are back in new sessions.`,
      );
    },
  );
  const uninstall = h('button', {
    type: 'button',
    class: 'button small danger-quiet',
    text: 'Uninstall…',
    'aria-label': `Uninstall ${plugin.name}`,
    dataset: { focusKey: `uninstall:${plugin.name}` },
  });
  uninstall.addEventListener('click', async () => {
    await confirmAction({
      title: `Uninstall ${plugin.name}?`,
      message: [
        h(
          'p',
          {},
          'Its clone ',
          h('code', { text: plugin.dir }),
          ' is removed, with its registry entry and the on/off state of its capabilities.',
        ),
        h('p', { text: 'Your own capabilities repository is not touched. You can install it again from its URL.' }),
      ],
      confirmLabel: 'Uninstall',
      onConfirm: async () => {
        const result = await request('DELETE /api/plugins/:name', { params: { name: plugin.name } });
        const warnings = result?.warnings ?? [];
        context.notify(`Uninstalled ${plugin.name}.${warnings.length === 0 ? '' : ` ${warnings.join(' ')}`}`);
      },
    });
    await context.refresh();
  });

  const counts = own === null ? null : summarize(own);
  return h(
    'li',
    { class: `card${plugin.enabled ? '' : ' is-off'}`, 'aria-labelledby': headingId, dataset: { plugin: plugin.name } },
    h('div', { class: 'card-head' }, h('h2', { id: headingId, text: plugin.name }), pluginBadge(plugin, own)),
    h(
      'dl',
      { class: 'facts' },
      h('dt', { text: 'From' }),
      h('dd', {}, h('code', { class: 'wrap', text: plugin.url })),
      h('dt', { text: 'Commit' }),
      h('dd', {}, h('code', { text: String(plugin.commit).slice(0, 12) }), plugin.ref ? ` · ${plugin.ref}` : ''),
      h('dt', { text: 'Installed' }),
      h('dd', { text: relativeTime(plugin.installedAt) }),
      counts === null ? null : h('dt', { text: 'Provides' }),
      counts === null ? null : h('dd', { text: counts }),
    ),
    h('div', { class: 'card-actions' }, update, toggle, uninstall),
  );

  function action(label, text, focusKey, work) {
    const button = h('button', { type: 'button', class: 'button small', text, 'aria-label': label, dataset: { focusKey } });
    button.addEventListener('click', async () => {
      if (!context.hasToken()) {
        void context.askForToken();
        return;
      }
      button.disabled = true;
      button.setAttribute('aria-busy', 'true');
      try {
        await work();
      } catch (error) {
        context.fail(`Could not ${text.toLowerCase()} ${plugin.name}`, error);
      }
      await context.refresh();
    });
    return button;
  }
}

function summarize(entries) {
  if (entries.length === 0) return 'no capabilities';
  const byKind = new Map();
  for (const entry of entries) byKind.set(entry.kind, (byKind.get(entry.kind) ?? 0) + 1);
  return [...byKind].map(([kind, count]) => `${count} ${kind}${count === 1 ? '' : 's'}`).join(', ');
}

/**
 * Enabled, disabled, or held: an enabled plugin whose tasks or servers wait for approval is not
 * simply "enabled", since part of it does not run.
 */
function pluginBadge(plugin, own) {
  const held = plugin.enabled && own !== null && own.some((entry) => entry.decidedBy === 'unapproved-plugin');
  if (held)
    return h('span', { class: 'badge status-held', title: 'enabled, but what it runs waits for approval', text: 'held: not approved' });
  return h('span', {
    class: `badge ${plugin.enabled ? 'status-succeeded' : 'status-skipped'}`,
    text: plugin.enabled ? 'enabled' : 'disabled',
  });
}
