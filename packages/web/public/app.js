// The capability screen: one page, four views (capabilities, tasks, plugins, inbox) over the
// project in view. Views render from the server's answers and re-render after every change, so
// what is shown is always what the server reads back, never a guess.

import { adoptTokenFromAddress, ApiError, follow, forgetToken, getToken, request, setToken } from './api.js';
import { field, openDialog } from './dialogs.js';
import { baseName, focusByKey, focusKeyOf, h, replaceChildren } from './dom.js';
import { prose } from './prose.js';
import { recentProjects, rememberProject } from './recentProjects.js';
import { watchRuntimeDrift } from './runtimeDrift.js';
import { renderCapabilities } from './views/capabilitiesView.js';
import { renderInbox } from './views/inboxView.js';
import { renderPlugins } from './views/pluginsView.js';
import { renderRuntimes } from './views/runtimesView.js';
import { renderTasks } from './views/tasksView.js';

const VIEWS = {
  capabilities: { title: 'Capabilities', render: renderCapabilities },
  tasks: { title: 'Tasks', render: renderTasks },
  plugins: { title: 'Plugins', render: renderPlugins },
  runtimes: { title: 'Runtimes', render: renderRuntimes },
  inbox: { title: 'Inbox', render: renderInbox },
};

// The page's fixed parts (index.html): they are always there, so their types say so.
const main = /** @type {HTMLElement} */ (document.getElementById('main'));
const alerts = /** @type {HTMLElement} */ (document.getElementById('alerts'));
const status = /** @type {HTMLElement} */ (document.getElementById('status'));
const projectForm = /** @type {HTMLFormElement} */ (document.getElementById('project-form'));
const projectInput = /** @type {HTMLInputElement} */ (document.getElementById('project-input'));
const projectClear = /** @type {HTMLButtonElement} */ (document.getElementById('project-clear'));
const unreadCount = /** @type {HTMLElement} */ (document.getElementById('unread-count'));

/** What every view is handed: where it is, and how to speak to the owner. */
const context = {
  /** The project in view (the server's real path), or null for the global level only. @type {string | null} */
  project: null,
  /** @type {number | undefined} */
  notifyTimer: undefined,
  /** Says that something worked, politely (a status message, not an alert). */
  notify(message) {
    status.textContent = message;
    status.classList.add('shown');
    window.clearTimeout(context.notifyTimer);
    context.notifyTimer = window.setTimeout(() => status.classList.remove('shown'), 8000);
  },
  /** Shows a failure in words until dismissed; `what` says what was being attempted. */
  fail(what, error) {
    // A refused token is answered by the token dialog, not by one more alert.
    if (error instanceof ApiError && error.status === 401) return;
    showAlert(`${what}: ${describeError(error)}`);
  },
  /** Re-renders the current view, keeping focus on the element with the same `data-focus-key`. */
  refresh: () => render(),
  /** Opens another project (or none) and re-renders. */
  openProject: (project) => openProject(project),
  setUnread(count) {
    unreadCount.hidden = count === 0;
    unreadCount.textContent = String(count);
    unreadCount.setAttribute('aria-label', `${count} unread`);
  },
  hasToken: () => getToken() !== null,
  askForToken: () => askForToken(),
  /** Which runtimes are out of date: the hint and the Runtimes tab's count. @type {ReturnType<typeof watchRuntimeDrift> | null} */
  runtimeDrift: null,
};
context.runtimeDrift = watchRuntimeDrift(context);

function describeError(error) {
  if (error instanceof ApiError)
    return error.code && !error.message.includes(error.code) ? `${error.message} (${error.code})` : error.message;
  return error instanceof Error ? error.message : String(error);
}

function showAlert(message) {
  const close = h('button', { type: 'button', class: 'button quiet small', text: 'Dismiss' });
  const notice = h('div', { class: 'notice error', role: 'alert' }, h('p', {}, prose(message)), close);
  close.addEventListener('click', () => {
    notice.remove();
    main.focus();
  });
  alerts.append(notice);
  // Keep the newest few: an owner who leaves the screen open should not find a wall of old errors.
  while (alerts.children.length > 4) alerts.firstElementChild?.remove();
}

function currentView() {
  const name = location.hash.replace(/^#/, '');
  return Object.hasOwn(VIEWS, name) ? name : 'capabilities';
}

let renderRun = 0;
let shownView = null;

async function render() {
  const run = ++renderRun;
  const name = currentView();
  const view = VIEWS[name];
  for (const link of document.querySelectorAll('.tabs a')) {
    if (/** @type {HTMLElement} */ (link).dataset.view === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  document.title = `${view.title}${context.project === null ? '' : ` · ${baseName(context.project)}`} · Loadout`;
  const focusKey = focusKeyOf(document.activeElement);
  const changedView = shownView !== name;
  shownView = name;
  const container = h('div', { class: `view view-${name}` });
  try {
    await view.render(container, context);
  } catch (error) {
    replaceChildren(container, h('h1', { text: view.title }), h('p', { class: 'empty', text: 'This view could not be loaded.' }));
    context.fail(`Could not load ${view.title.toLowerCase()}`, error);
  }
  if (run !== renderRun) return;
  replaceChildren(main, container);
  if (focusKey !== null) focusByKey(main, focusKey);
  else if (changedView && document.activeElement === document.body) main.focus({ preventScroll: true });
}

function updateProjectPicker() {
  projectInput.value = context.project ?? '';
  projectClear.hidden = context.project === null;
  const list = document.getElementById('recent-projects');
  replaceChildren(
    list,
    recentProjects().map((dir) => h('option', { value: dir })),
  );
}

/**
 * Opens `project` after checking with the server that it is a folder it can read. Reads of a
 * project need the token (the server refuses them without it), so a tab without one asks first;
 * when the owner cancels, the global level stays in view.
 */
async function openProject(project) {
  let wanted = typeof project === 'string' && project.trim() !== '' ? project.trim() : null;
  if (
    wanted !== null &&
    getToken() === null &&
    !(await askForToken(`Opening the project ${wanted} needs the token of this Loadout server.`))
  )
    wanted = null;
  if (wanted === null) {
    context.project = null;
  } else {
    try {
      const session = await request('GET /api/session', { query: { project: wanted } });
      context.project = typeof session?.project === 'string' ? session.project : wanted;
      rememberProject(context.project);
    } catch (error) {
      context.fail(`Could not open project ${wanted}`, error);
      return;
    }
  }
  const url = new URL(location.href);
  if (context.project === null) url.searchParams.delete('project');
  else url.searchParams.set('project', context.project);
  history.replaceState(null, '', url);
  updateProjectPicker();
  await render();
}

let askingForToken = null;

/** Asks for the server token; resolves once one is accepted (or the owner cancels). */
function askForToken(reason) {
  if (askingForToken !== null) return askingForToken;
  const input = h('input', { type: 'password', name: 'token', autocomplete: 'off', spellcheck: 'false', required: true, autofocus: true });
  askingForToken = openDialog({
    title: 'Server token',
    body: [
      h('p', { text: reason ?? 'Changes and runs need the token of this Loadout server.' }),
      h(
        'p',
        { class: 'hint' },
        '`loadout serve` prints where the token is, never the token itself. Paste the content of the file ',
        h('code', { text: 'server-token' }),
        ' in the data folder (LOADOUT_DATA_DIR), or the value of LOADOUT_TOKEN when the server was started with it.',
      ),
      field('Token', input),
    ],
    submitLabel: 'Use token',
    onSubmit: async () => {
      const token = input.value.trim();
      if (token === '') throw new Error('Paste the token first.');
      setToken(token);
      try {
        // A protected read: answers 401 when the token is wrong, changes nothing.
        await request('GET /api/notifications', { query: { limit: 1 } });
      } catch (error) {
        forgetToken();
        throw error instanceof ApiError && error.status === 401 ? new Error('The server did not accept this token.') : error;
      }
    },
  }).then(async (accepted) => {
    askingForToken = null;
    if (accepted) {
      context.notify('Token accepted for this tab.');
      startInboxStream();
      await render();
    }
    return accepted;
  });
  return askingForToken;
}

let inboxStream = null;

/** Keeps the unread count live, and the inbox view when it is open. */
function startInboxStream() {
  if (inboxStream !== null || getToken() === null) return;
  request('GET /api/notifications', { query: { unread: 'true', limit: 1000 } })
    .then((items) => context.setUnread(Array.isArray(items) ? items.length : 0))
    .catch((error) => context.fail('Could not count unread notifications', error));
  inboxStream = follow(
    '/api/notifications/stream',
    {},
    {
      notification: () => {
        context.setUnread(Number(unreadCount.textContent || '0') + 1);
        if (currentView() === 'inbox') void render();
      },
    },
  );
}

projectForm.addEventListener('submit', (event) => {
  event.preventDefault();
  void openProject(projectInput.value);
});
projectClear.addEventListener('click', () => void openProject(null));
window.addEventListener('hashchange', () => void render());
window.addEventListener('loadout:unauthorized', () => {
  forgetToken();
  inboxStream?.close();
  inboxStream = null;
  void askForToken('The server refused the token this tab had. Paste the current one.');
});
// An owner keeps this open all day: what changed elsewhere (the CLI, an agent) shows on return.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && document.querySelector('dialog[open]') === null) void render();
});

async function boot() {
  adoptTokenFromAddress();
  const fromAddress = new URL(location.href).searchParams.get('project');
  updateProjectPicker();
  if (fromAddress !== null && fromAddress !== '') {
    // Asks for the token first when this tab has none.
    await openProject(fromAddress);
  } else {
    await render();
    if (getToken() === null) void askForToken();
  }
  startInboxStream();
}

void boot();
