// Tasks: the owner's can be created, edited and deleted; a plugin's says whose it is instead. Any
// task can be run: its output arrives live, and past runs are listed with their status.

import { ApiError, follow, request } from '../api.js';
import { confirmAction, field, openDialog } from '../dialogs.js';
import { baseName, h, relativeTime, replaceChildren, uniqueId } from '../dom.js';
import { heldNotice, liftHoldButton } from '../holdActions.js';
import { prose } from '../prose.js';
import { formFits, inputFields } from '../taskInputForm.js';

const STATUS_LABELS = {
  waiting: 'waiting',
  queued: 'queued',
  running: 'running',
  succeeded: 'succeeded',
  failed: 'failed',
  skipped: 'skipped',
};

/**
 * The run panel survives re-renders: a run keeps streaming while the list refreshes.
 * @type {{
 *   task: import('../../types/wire.js').TaskRecord | null, job: number | null, stream: { close(): void } | null,
 *   output: string, stderr: string, status: import('../../types/wire.js').JobStatus | null,
 *   exitCode: number | null, error: string | null, inputText: string,
 *   formValues: Record<string, string | boolean>, refusal: string | null,
 * }}
 */
const panel = {
  task: null,
  job: null,
  stream: null,
  output: '',
  stderr: '',
  status: null,
  exitCode: null,
  error: null,
  inputText: '{}',
  formValues: {},
  refusal: null,
};
/** A job that can still be stopped. */
const STOPPABLE = new Set(['waiting', 'queued', 'running']);

export async function renderTasks(container, context) {
  const project = context.project;
  const [tasks, jobs] = await Promise.all([
    request('GET /api/tasks', { query: { project } }),
    context.hasToken() ? request('GET /api/jobs', { query: { limit: 200 } }) : Promise.resolve(null),
  ]);
  const taskList = Array.isArray(tasks) ? tasks : [];
  const jobList = Array.isArray(jobs) ? jobs : [];
  const shown = panel.task;
  if (shown !== null) panel.task = taskList.find((task) => task.dirName === shown.dirName) ?? shown;

  const newButton = h('button', { type: 'button', class: 'button primary', text: 'New task…', dataset: { focusKey: 'new-task' } });
  newButton.addEventListener('click', () => void editTask(context, null));

  const groups = [];
  if (project !== null)
    groups.push({ key: 'project', title: `Project · ${baseName(project)}`, tasks: taskList.filter((task) => task.level === 'project') });
  groups.push({ key: 'global', title: 'Global', tasks: taskList.filter((task) => task.level !== 'project') });

  const runPanel = h('section', { class: 'panel run-panel', 'aria-labelledby': 'run-title', id: 'run-panel' });
  renderRunPanel(runPanel, context, jobList);

  replaceChildren(
    container,
    h(
      'div',
      { class: 'view-head' },
      h('h1', { text: 'Tasks' }),
      h('p', { class: 'lede', text: 'Yours can be edited. A plugin’s task runs the same way but belongs to its plugin.' }),
      newButton,
    ),
    context.hasToken() ? null : tokenNote(context),
    h(
      'div',
      { class: 'split' },
      h(
        'div',
        { class: 'split-main' },
        groups.map((group) => {
          const headingId = uniqueId('group');
          return h(
            'div',
            { class: 'group', dataset: { group: group.key } },
            h('h2', { id: headingId, text: group.title }),
            group.tasks.length === 0
              ? h('p', { class: 'empty', text: 'No tasks at this level.' })
              : h(
                  'ul',
                  { class: 'rows', 'aria-labelledby': headingId },
                  group.tasks.map((task) => taskRow(task, context, jobList)),
                ),
          );
        }),
        recentRuns(jobList, taskList, context),
      ),
      runPanel,
    ),
  );
}

function taskRow(task, context, jobs) {
  const last = jobs.find((job) => job.taskDirName === task.dirName);
  // A held task is never offered a run: its one action lifts the hold.
  let run;
  if (task.held === undefined) {
    run = h('button', {
      type: 'button',
      class: 'button small primary',
      text: 'Run…',
      'aria-label': `Run ${task.name}`,
      dataset: { focusKey: `run:${task.dirName}` },
    });
    run.addEventListener('click', () => {
      openRunPanel(task);
      void context
        .refresh()
        .then(() => /** @type {HTMLElement | null} */ (document.querySelector('#run-panel form :is(input, select, textarea)'))?.focus());
    });
  } else {
    run = liftHoldButton(task, context);
  }
  let ownership;
  if (task.plugin === null) {
    const edit = h('button', {
      type: 'button',
      class: 'button small',
      text: 'Edit…',
      'aria-label': `Edit ${task.name}`,
      dataset: { focusKey: `edit:${task.dirName}` },
    });
    edit.addEventListener('click', () => void editTask(context, task));
    const remove = h('button', {
      type: 'button',
      class: 'button small danger-quiet',
      text: 'Delete…',
      'aria-label': `Delete ${task.name}`,
      dataset: { focusKey: `delete:${task.dirName}` },
    });
    remove.addEventListener('click', () => void deleteTask(context, task));
    ownership = [edit, remove];
  } else {
    ownership = h('span', { class: 'provided-by', text: `Provided by ${task.plugin}` });
  }
  return h(
    'li',
    {
      class: `row task-row${task.held === undefined ? '' : ' is-held'}`,
      dataset: { dirName: task.dirName, plugin: task.plugin ?? '', level: task.level, held: task.held?.decidedBy ?? '' },
    },
    h(
      'div',
      { class: 'row-main' },
      h(
        'div',
        { class: 'row-title' },
        h('span', { class: 'name', text: task.name }),
        h('code', { class: 'id', text: task.dirName }),
        task.plugin === null
          ? h('span', { class: 'source owner', text: 'owner' })
          : h('span', { class: 'source plugin', text: task.plugin }),
      ),
      task.description ? h('p', { class: 'description', text: task.description }) : null,
      h(
        'div',
        { class: 'row-meta' },
        task.held === undefined ? null : heldNotice(task.held.reason),
        h(
          'span',
          { class: 'meta', title: 'implementation' },
          h('span', { class: 'visually-hidden', text: 'Implementation: ' }),
          h('code', { text: task.implementation }),
        ),
        last === undefined
          ? h('span', { class: 'meta', text: 'never run' })
          : h(
              'span',
              { class: 'meta' },
              'last run ',
              statusBadge(last.status),
              ` ${relativeTime(last.finishedAt ?? last.startedAt ?? last.createdAt)}`,
            ),
      ),
    ),
    h('div', { class: 'row-actions' }, run, ownership),
  );
}

function statusBadge(status) {
  return h('span', { class: `badge status-${status}`, text: STATUS_LABELS[status] ?? status });
}

function openRunPanel(task) {
  if (panel.task?.dirName !== task.dirName) {
    panel.stream?.close();
    Object.assign(panel, {
      task,
      job: null,
      stream: null,
      output: '',
      stderr: '',
      status: null,
      exitCode: null,
      error: null,
      inputText: '{}',
      formValues: {},
      refusal: null,
    });
  }
}

function renderRunPanel(section, context, jobs) {
  if (panel.task === null) {
    replaceChildren(
      section,
      h('h2', { id: 'run-title', text: 'Run a task' }),
      h('p', { class: 'empty', text: 'Choose “Run…” on a task to run it here and watch its output arrive.' }),
    );
    return;
  }
  const task = panel.task;
  const { inputNodes, readInput } = runInput(task);
  const start = h('button', {
    type: 'submit',
    class: 'button primary',
    text: panel.status === 'running' || panel.status === 'queued' ? 'Run again' : 'Run',
  });
  const form = h(
    'form',
    { class: 'run-form' },
    inputNodes,
    panel.refusal === null ? null : h('p', { class: 'dialog-error', id: 'run-refusal', role: 'alert' }, prose(panel.refusal)),
    h('div', { class: 'form-actions' }, start),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void startRun(context, task, readInput);
  });

  const output = h('pre', {
    class: 'output',
    id: 'run-output',
    role: 'log',
    'aria-live': 'polite',
    'aria-label': `Output of ${task.name}`,
    tabindex: '0',
  });
  output.textContent = panel.output === '' && panel.stderr === '' ? (panel.job === null ? '' : 'Waiting for output…') : panel.output;
  const stderr =
    panel.stderr === ''
      ? null
      : h('pre', { class: 'output stderr', 'aria-label': `Errors printed by ${task.name}`, tabindex: '0', text: panel.stderr });
  const close = h('button', { type: 'button', class: 'button quiet small', text: 'Close', 'aria-label': 'Close the run panel' });
  close.addEventListener('click', () => {
    panel.stream?.close();
    Object.assign(panel, { task: null, job: null, stream: null });
    void context.refresh();
  });

  const past = jobs.filter((job) => job.taskDirName === task.dirName).slice(0, 10);
  replaceChildren(
    section,
    h('div', { class: 'panel-head' }, h('h2', { id: 'run-title' }, 'Run ', h('span', { text: task.name })), close),
    h('p', { class: 'hint' }, h('code', { text: task.dirName }), task.plugin === null ? ' · owner' : ` · provided by ${task.plugin}`),
    context.hasToken() ? form : tokenNote(context),
    panel.job === null
      ? null
      : h(
          'div',
          { class: 'run-status', id: 'run-status' },
          h('span', { text: `Job #${panel.job}` }),
          statusBadge(panel.status ?? 'queued'),
          panel.exitCode === null || panel.exitCode === undefined
            ? null
            : h('span', { class: 'meta', text: `exit code ${panel.exitCode}` }),
          panel.error ? h('span', { class: 'warning', text: panel.error }) : null,
          STOPPABLE.has(panel.status ?? 'queued') ? stopButton(context, panel.job, task) : null,
        ),
    panel.job === null ? null : output,
    stderr,
    h('h3', { text: 'Past runs' }),
    past.length === 0
      ? h('p', { class: 'empty', text: 'No runs yet.' })
      : h(
          'ul',
          { class: 'runs', 'aria-label': `Past runs of ${task.name}` },
          past.map((job) => {
            const show = h('button', {
              type: 'button',
              class: 'button quiet small',
              text: `#${job.id}`,
              'aria-label': `Show run ${job.id}`,
            });
            show.addEventListener('click', () => void showJob(context, job.id));
            return h(
              'li',
              {},
              show,
              statusBadge(job.status),
              h('span', { class: 'meta', text: relativeTime(job.finishedAt ?? job.startedAt ?? job.createdAt) }),
              job.exitCode === null ? null : h('span', { class: 'meta', text: `exit ${job.exitCode}` }),
            );
          }),
        ),
  );
}

/**
 * The input part of the run form: fields drawn from the task's declared input schema when a form
 * can say it, else the JSON box. `readInput` answers the input, or throws when the JSON is not JSON.
 */
function runInput(task) {
  if (formFits(task.inputSchema)) {
    const { nodes, read } = inputFields(task.inputSchema, panel.formValues, (name, value) => {
      panel.formValues[name] = value;
    });
    return { inputNodes: nodes, readInput: read };
  }
  const input = h('textarea', { id: 'run-input', rows: '3', spellcheck: 'false', class: 'mono' });
  input.value = panel.inputText;
  input.addEventListener('input', () => {
    panel.inputText = input.value;
  });
  return {
    inputNodes: field('Input (JSON, given to the task on stdin)', input),
    readInput: () => (input.value.trim() === '' ? {} : JSON.parse(input.value)),
  };
}

/** Stops a job that has not ended: its process group is stopped and it fails as "cancelled by the owner". */
function stopButton(context, id, task) {
  const stop = h('button', {
    type: 'button',
    class: 'button small danger-quiet',
    text: 'Stop',
    'aria-label': `Stop job ${id} of ${task.name}`,
    dataset: { focusKey: 'run-stop' },
  });
  stop.addEventListener('click', async () => {
    stop.disabled = true;
    try {
      await request('POST /api/jobs/:id/cancel', { params: { id } });
      context.notify(`Stopping job #${id}.`);
    } catch (error) {
      context.fail(`Could not stop job #${id}`, error);
      stop.disabled = false;
    }
  });
  return stop;
}

/** Input refusals are the owner's to fix in the form, so they are shown there, not as a page alert. */
const INPUT_REFUSALS = new Set(['TASK_INPUT_INVALID', 'REQUEST_INVALID']);

/** Queues a run and follows its output over Server-Sent Events, updating the panel in place. */
async function startRun(context, task, readInput) {
  let input;
  try {
    input = readInput();
  } catch (error) {
    context.fail(`The input for ${task.name} is not JSON`, error);
    return;
  }
  panel.refusal = null;
  try {
    const answer = await request('POST /api/tasks/:dirName/runs', {
      params: { dirName: task.dirName },
      body: { input, project: context.project },
    });
    panel.stream?.close();
    Object.assign(panel, { job: answer.job.id, status: answer.job.status, output: '', stderr: '', exitCode: null, error: null });
    context.notify(`Started ${task.name} as job #${answer.job.id}.`);
    followJob(context, answer.job.id);
  } catch (error) {
    if (error instanceof ApiError && INPUT_REFUSALS.has(error.code)) panel.refusal = error.message;
    else context.fail(`Could not run ${task.name}`, error);
  }
  await context.refresh();
}

function followJob(context, id) {
  const paint = () => {
    if (panel.job !== id) return;
    const output = document.getElementById('run-output');
    if (output !== null) output.textContent = panel.output === '' ? 'Waiting for output…' : panel.output;
    const status = document.querySelector('#run-status .badge');
    if (status !== null) {
      status.className = `badge status-${panel.status}`;
      status.textContent = STATUS_LABELS[panel.status] ?? panel.status;
    }
  };
  panel.stream = follow(
    '/api/jobs/:id/stream',
    { id },
    {
      status: (data) => {
        panel.status = data.status;
        if (data.error) panel.error = data.error;
        paint();
      },
      output: (chunk) => {
        if (chunk.stream === 'stderr') panel.stderr += chunk.text;
        else panel.output += chunk.text;
        paint();
      },
      end: (job) => {
        Object.assign(panel, { status: job.status, exitCode: job.exitCode, error: job.error ?? null, stream: null });
        context.notify(
          `Job #${id} ${job.status}${job.exitCode === null || job.exitCode === undefined ? '' : ` (exit code ${job.exitCode})`}.`,
        );
        void context.refresh();
      },
    },
    (error) => context.fail(`Lost the output of job #${id}`, error),
  );
}

async function showJob(context, id) {
  try {
    const job = await request('GET /api/jobs/:id', { params: { id } });
    panel.stream?.close();
    Object.assign(panel, {
      job: job.id,
      status: job.status,
      output: job.output ?? '',
      stderr: job.stderr ?? '',
      exitCode: job.exitCode,
      error: job.error ?? null,
      stream: null,
    });
    if (job.status === 'running' || job.status === 'queued') {
      Object.assign(panel, { output: '', stderr: '' });
      followJob(context, job.id);
    }
  } catch (error) {
    context.fail(`Could not read job #${id}`, error);
  }
  await context.refresh();
}

function recentRuns(jobs, tasks, context) {
  const names = new Map(tasks.map((task) => [task.dirName, task]));
  const headingId = uniqueId('runs');
  return h(
    'section',
    { class: 'group', 'aria-labelledby': headingId },
    h('h2', { id: headingId, text: 'Recent runs' }),
    !context.hasToken()
      ? h('p', { class: 'empty', text: 'Runs are shown with the server token.' })
      : jobs.length === 0
        ? h('p', { class: 'empty', text: 'Nothing has run yet.' })
        : h(
            'table',
            { class: 'table' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Job', 'Task', 'Status', 'Exit', 'When'].map((title) => h('th', { scope: 'col', text: title })),
              ),
            ),
            h(
              'tbody',
              {},
              jobs.slice(0, 20).map((job) => {
                const task = names.get(job.taskDirName);
                const show = h('button', {
                  type: 'button',
                  class: 'button quiet small',
                  text: `#${job.id}`,
                  'aria-label': `Show run ${job.id} of ${job.taskDirName}`,
                });
                show.addEventListener('click', () => {
                  if (task !== undefined) openRunPanel(task);
                  void showJob(context, job.id);
                });
                return h(
                  'tr',
                  {},
                  h('td', {}, show),
                  h('td', {}, h('code', { text: job.taskDirName })),
                  h('td', {}, statusBadge(job.status)),
                  h('td', { text: job.exitCode === null ? '—' : String(job.exitCode) }),
                  h('td', { text: relativeTime(job.finishedAt ?? job.startedAt ?? job.createdAt) }),
                );
              }),
            ),
          ),
  );
}

/** Create (task null) or edit an owner's task. */
async function editTask(context, task) {
  const creating = task === null;
  const dirName = h('input', {
    name: 'dirName',
    required: true,
    spellcheck: 'false',
    autocomplete: 'off',
    pattern: '[^/\\\\]+',
    placeholder: 'e.g. summarize-logs',
  });
  const name = h('input', { name: 'name', required: true, value: task?.name ?? '' });
  const description = h('input', { name: 'description', required: true, value: task?.description ?? '' });
  const filename = h('input', {
    name: 'filename',
    required: creating,
    spellcheck: 'false',
    value: creating ? 'run.mjs' : '',
    placeholder: creating ? '' : task.implementation,
  });
  const content = h('textarea', { name: 'content', rows: '8', spellcheck: 'false', class: 'mono', required: creating });
  if (creating)
    content.value =
      "// The input arrives as JSON on stdin; what you print is the run's output.\nlet text = '';\nfor await (const chunk of process.stdin) text += chunk;\nconsole.log('hello', JSON.parse(text || '{}'));\n";
  const body = h('textarea', { name: 'body', rows: '3' });
  const level = h(
    'select',
    { name: 'level' },
    h('option', { value: 'global', text: 'Global (the owner’s repository)' }),
    context.project === null ? null : h('option', { value: 'project', text: `Project · ${baseName(context.project)}` }),
  );

  await openDialog({
    title: creating ? 'New task' : `Edit ${task.name}`,
    wide: true,
    submitLabel: creating ? 'Create task' : 'Save changes',
    body: [
      creating ? field('Folder name', dirName, 'The task’s identity: tasks/<folder>/TASK.md. No slashes.') : null,
      field('Name', name),
      field('Description', description),
      creating ? field('Level', level) : null,
      field(
        creating ? 'Implementation file' : 'Replace implementation: file name',
        filename,
        creating
          ? 'Runnable: .mjs, .js or .cjs with node; .sh with bash; .py with python3.'
          : `Leave empty to keep ${task.implementation}.`,
      ),
      field(creating ? 'Implementation' : 'Replace implementation: content', content),
      field(
        creating ? 'Instructions (optional)' : 'Replace instructions (optional)',
        body,
        creating ? 'Markdown after the frontmatter, for people and agents.' : 'Leave empty to keep them as they are.',
      ),
    ],
    onSubmit: async () => {
      if (creating) {
        const created = await request('POST /api/tasks', {
          query: { project: context.project },
          body: {
            dirName: dirName.value.trim(),
            name: name.value.trim(),
            description: description.value.trim(),
            level: level.value,
            implementation: { filename: filename.value.trim(), content: content.value },
            ...(body.value.trim() === '' ? {} : { body: body.value }),
          },
        });
        context.notify(`Created task ${created?.name ?? name.value}.`);
        return;
      }
      const patch = {};
      if (name.value.trim() !== task.name) patch.name = name.value.trim();
      if (description.value.trim() !== (task.description ?? '')) patch.description = description.value.trim();
      if (filename.value.trim() !== '' || content.value !== '') {
        if (filename.value.trim() === '' && content.value === '')
          throw new Error('Give both a file name and content to replace the implementation.');
        patch.implementation = { filename: filename.value.trim() || task.implementation, content: content.value };
      }
      if (body.value.trim() !== '') patch.body = body.value;
      if (Object.keys(patch).length === 0) throw new Error('Nothing changed.');
      await request('PUT /api/tasks/:dirName', { params: { dirName: task.dirName }, query: { project: context.project }, body: patch });
      context.notify(`Saved ${patch.name ?? task.name}.`);
    },
  });
  await context.refresh();
}

async function deleteTask(context, task) {
  await confirmAction({
    title: `Delete ${task.name}?`,
    message: [
      h(
        'p',
        {},
        'The folder ',
        h('code', { text: `tasks/${task.dirName}` }),
        ` is removed from ${task.level === 'project' ? 'the project' : 'your capabilities repository'}. Its past runs stay in the list.`,
      ),
    ],
    confirmLabel: 'Delete task',
    onConfirm: async () => {
      await request('DELETE /api/tasks/:dirName', { params: { dirName: task.dirName }, query: { project: context.project } });
      if (panel.task?.dirName === task.dirName) {
        panel.stream?.close();
        Object.assign(panel, { task: null, job: null, stream: null });
      }
      context.notify(`Deleted ${task.name}.`);
    },
  });
  await context.refresh();
}

function tokenNote(context) {
  const button = h('button', { type: 'button', class: 'button small', text: 'Enter the server token' });
  button.addEventListener('click', () => void context.askForToken());
  return h('p', { class: 'note' }, 'Running, creating and changing tasks need the server token. ', button);
}
