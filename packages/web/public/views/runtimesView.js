// Runtimes: what each agent runtime holds of the session and what `apply` would write there, the
// one Apply button (the CLI's own apply on the server: it plans afresh and writes under the same
// lock), the trash with Restore, and every diagnostic of the session with its plugin and its fix.

import { request } from '../api.js';
import { openDialog } from '../dialogs.js';
import { h, relativeTime, replaceChildren, uniqueId } from '../dom.js';
import { prose, splitFix } from '../prose.js';

/**
 * @typedef {import('../../types/wire.js').ApplyResult} Plan
 * @typedef {Plan['runtimes'][number]} RuntimePart
 * @typedef {RuntimePart['changes'][number]} Change
 * @typedef {import('../../types/wire.js').Diagnostic} Diagnostic
 * @typedef {import('../../types/wire.js').Routes['GET /api/runtimes/budget']['answer']['runtimes'][number]} RuntimeBudget
 */

/** Verbs for a change, as a person reads the plan. */
const ACTION_WORDS = {
  create: 'write',
  update: 'update',
  adopt: 'adopt',
  retire: 'retire',
  release: 'release',
  forget: 'forget',
  skip: 'skipped',
};

/** What the runtime's state is, in two words, and the class its badge takes. */
export function runtimeState(part) {
  if (part.status === 'conflict') return { label: 'conflict', tone: 'status-failed' };
  if (part.status === 'blocked') return { label: 'blocked', tone: 'status-failed' };
  const pending = part.changes.filter((change) => change.action !== 'skip').length;
  return pending === 0 ? { label: 'in sync', tone: 'status-succeeded' } : { label: `${pending} to write`, tone: 'status-running' };
}

export async function renderRuntimes(container, context) {
  const head = h(
    'div',
    { class: 'view-head' },
    h('h1', { text: 'Runtimes' }),
    h('p', { class: 'lede', text: 'What each agent runtime holds of this session, and what Apply writes into its folders.' }),
  );
  if (!context.hasToken()) {
    replaceChildren(container, head, h('p', { class: 'note', text: 'Reading the runtimes needs the token of this Loadout server.' }));
    return;
  }
  const project = context.project;
  const [plan, trash, session, budget] = await Promise.all([
    request('GET /api/runtimes', { query: { project } }),
    request('GET /api/runtimes/trash'),
    request('GET /api/session', { query: { project } }),
    request('GET /api/runtimes/budget', { query: { project } }),
  ]);
  const listings = new Map(budget.runtimes.map((entry) => [entry.runtime, entry]));
  context.runtimeDrift?.show(
    plan.runtimes.filter((part) => part.verified && runtimeState(part).label !== 'in sync').map((part) => part.runtime),
  );
  const verified = plan.runtimes.filter((part) => part.verified);
  const others = plan.runtimes.filter((part) => !part.verified);
  head.append(applyButton(plan, context));
  replaceChildren(
    container,
    head,
    h('p', { class: 'runtimes-summary', role: 'status', text: summary(plan) }),
    selectionSection(plan.selection, context),
    h(
      'ul',
      { class: 'runtime-list', 'aria-label': 'Runtimes Loadout writes' },
      verified.map((part) => runtimeCard(part, context, listings.get(part.runtime))),
    ),
    others.length === 0 ? null : unconfirmedList(others),
    trashSection(trash, context),
    diagnosticsSection([...session.diagnostics, ...plan.findings], session.roots),
  );
}

function summary(plan) {
  const stale = plan.runtimes.filter((part) => part.verified && runtimeState(part).label !== 'in sync');
  if (stale.length === 0) return 'Every runtime is in sync with the session.';
  return `${stale.map((part) => part.runtime).join(', ')} ${stale.length === 1 ? 'is' : 'are'} out of date: ${plan.changeCount} change${plan.changeCount === 1 ? '' : 's'} to write.`;
}

/**
 * Which runtimes Apply writes and why: every known runtime with what was found of it, a box to
 * choose it, and the two ways to keep a choice (these, or back to the detected ones).
 *
 * @param {Plan['selection']} selection
 */
function selectionSection(selection, context) {
  const written = selection.runtimes.filter((entry) => entry.selected).map((entry) => entry.runtime);
  const grounds = selection.basis === 'chosen' ? 'chosen' : selection.basis === 'named' ? 'named' : 'detected on this machine';
  const boxes = selection.runtimes.map((entry) =>
    h(
      'li',
      { dataset: { runtime: entry.runtime } },
      h(
        'label',
        {},
        h('input', { type: 'checkbox', name: 'runtime', value: entry.runtime, checked: entry.selected }),
        h('span', { class: 'name', text: entry.runtime }),
        h('span', { class: 'hint', text: ` ${entry.reason}` }),
      ),
    ),
  );
  const choose = async (runtimes) => {
    try {
      await request('PUT /api/runtimes/chosen', { body: { runtimes } });
      context.notify(runtimes === null ? 'Apply writes the detected runtimes.' : `Apply writes ${runtimes.join(', ') || 'no runtime'}.`);
    } catch (error) {
      context.fail('Could not keep the choice', error);
    }
    await context.refresh();
  };
  const form = h(
    'form',
    { class: 'runtime-choice' },
    h('ul', {}, boxes),
    h('button', { type: 'submit', class: 'button', text: 'Write these' }),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void choose([...form.querySelectorAll('input[name="runtime"]:checked')].map((box) => box.value));
  });
  const reset = h('button', { type: 'button', class: 'button', text: 'Use the detected ones' });
  reset.addEventListener('click', () => void choose(null));
  return h(
    'details',
    { class: 'panel runtime-selection' },
    h('summary', { text: `Apply writes ${written.join(', ') || 'no runtime'} (${grounds})` }),
    form,
    selection.basis === 'chosen' ? reset : null,
  );
}

function applyButton(plan, context) {
  const button = h('button', {
    type: 'button',
    class: 'button primary',
    text: 'Apply',
    'aria-describedby': 'apply-what',
    dataset: { focusKey: 'runtimes-apply' },
  });
  const pending = plan.changeCount;
  const note = h('span', {
    class: 'hint',
    id: 'apply-what',
    text: pending === 0 ? 'Nothing to write.' : `Writes ${pending} change${pending === 1 ? '' : 's'}.`,
  });
  let busy = false;
  button.addEventListener('click', async () => {
    // Not disabled while it runs: a disabled button drops the keyboard focus the re-render gives back.
    if (busy) return;
    busy = true;
    button.setAttribute('aria-busy', 'true');
    try {
      const result = await request('POST /api/runtimes/apply', { body: { project: context.project } });
      if (result.ok)
        context.notify(
          result.applied ? `Applied ${result.changeCount} change${result.changeCount === 1 ? '' : 's'}.` : 'Nothing to change.',
        );
      else {
        const refused = result.runtimes
          .filter((part) => part.status === 'conflict' || part.status === 'blocked')
          .map((part) => part.runtime);
        context.fail('Not applied', new Error(`${refused.join(', ') || 'some runtimes'} got nothing: the plan says why`));
      }
    } catch (error) {
      context.fail('Could not apply', error);
    }
    await context.refresh();
  });
  return h('div', { class: 'apply' }, note, button);
}

/**
 * How the runtime will list the session's skills in its prompt: the summary line, and when it is
 * over budget the first piece of advice (the costliest descriptions). Nothing for a runtime whose
 * listing nobody measured.
 *
 * @param {RuntimeBudget | undefined} listing
 */
function listingLine(listing) {
  if (listing === undefined || !listing.rules.observed) return null;
  const over = listing.listing.observed && listing.listing.over > 0;
  return h(
    'div',
    { class: 'runtime-listing', dataset: { over: String(over) } },
    h('p', { class: over ? 'note' : 'meta', text: listing.summary }),
    over && listing.advice.length > 0 ? h('p', { class: 'hint', text: listing.advice[0] }) : null,
  );
}

/** One runtime: its state, its prompt listing, its plan (every change and skip, each with why), and its findings. */
function runtimeCard(part, context, listing) {
  const state = runtimeState(part);
  const titleId = uniqueId('runtime');
  const skips = part.changes.filter((change) => change.action === 'skip').length;
  const conflicts = part.findings.filter((finding) => finding.code === 'RUNTIME_CONFLICT').length;
  const facts = [
    `${part.sees.length} skill${part.sees.length === 1 ? '' : 's'} seen`,
    skips === 0 ? null : `${skips} skipped`,
    conflicts === 0 ? null : `${conflicts} conflict${conflicts === 1 ? '' : 's'}`,
    part.mcp === null ? null : `MCP configuration: ${part.mcp.status === 'ok' ? `${part.mcp.sees.length} servers` : 'conflict'}`,
    part.verifiedOn === null ? null : `verified ${part.verifiedOn}`,
  ].filter(Boolean);
  return h(
    'li',
    { class: 'panel runtime', dataset: { runtime: part.runtime, state: state.label }, 'aria-labelledby': titleId },
    h(
      'div',
      { class: 'card-head' },
      h('h2', { id: titleId, text: part.runtime }),
      h('span', { class: `badge ${state.tone}`, text: state.label }),
    ),
    h('p', { class: 'meta', text: facts.join(' · ') }),
    listingLine(listing),
    part.changes.length === 0
      ? null
      : h(
          'ul',
          { class: 'rows plan', 'aria-label': `Plan for ${part.runtime}` },
          part.changes.map((change) => changeRow(part.runtime, change, context)),
        ),
    part.findings.length === 0 ? null : findingList(part.findings, []),
  );
}

function changeRow(runtime, change, context) {
  const why = h('button', {
    type: 'button',
    class: 'button quiet small',
    text: 'Why?',
    'aria-label': `Why ${change.name} in ${runtime}`,
    dataset: { focusKey: `why:${runtime}/${change.kind}/${change.name}` },
  });
  why.addEventListener('click', () => void explain(runtime, change, context));
  const detail = change.action === 'skip' || change.source === null ? change.reason : `from ${change.source}`;
  return h(
    'li',
    { class: 'row plan-row', dataset: { action: change.action, name: change.name, kind: change.kind } },
    h('span', { class: `badge action-${change.action}`, text: ACTION_WORDS[change.action] ?? change.action }),
    h(
      'div',
      { class: 'plan-what' },
      h('span', { class: 'name', text: change.name }),
      ' ',
      h('span', { class: 'id', text: change.kind }),
      h('p', { class: 'description' }, prose(detail)),
      change.path === null ? null : h('p', { class: 'meta wrap' }, h('code', { text: change.path })),
    ),
    why,
  );
}

/**
 * The `why` of one skill in one runtime: every copy it finds, which wins, and the reason; for a
 * server, a subagent, a command or a hook, the plan's reason and where it goes.
 */
async function explain(runtime, change, context) {
  let body;
  if (change.kind !== 'skill') {
    body = [
      h('p', {}, prose(change.reason)),
      change.path === null ? null : h('p', { class: 'meta' }, 'In ', h('code', { text: change.path })),
    ];
  } else {
    try {
      const report = await request('GET /api/runtimes/why', { query: { name: change.name, project: context.project ?? undefined } });
      const part = report.runtimes.find((item) => item.runtime === runtime);
      body = [h('p', {}, prose(change.reason)), part === undefined ? null : whyCopies(part)];
    } catch (error) {
      context.fail(`Could not explain ${change.name}`, error);
      return;
    }
  }
  await openDialog({ title: `${change.name} in ${runtime}`, body, submitLabel: 'Close', cancelLabel: 'Back', wide: true });
}

function whyCopies(part) {
  return [
    h('p', {}, prose(part.reason)),
    part.copies.length === 0
      ? h('p', { class: 'empty', text: `${part.runtime} finds no copy of it.` })
      : h(
          'ol',
          { class: 'copies' },
          part.copies.map((copy) =>
            h(
              'li',
              { class: copy.wins ? 'wins' : null },
              h('code', { text: copy.path ?? `${part.runtime} itself` }),
              h(
                'span',
                { class: 'meta' },
                ` ${copy.plugin === null ? copy.owner : `${copy.owner} ${copy.plugin}`} · ${copy.loaded ? copy.state : `refused: ${copy.refusal ?? ''}`}${copy.wins ? ' · the one it uses' : ''}`,
              ),
            ),
          ),
        ),
  ];
}

function unconfirmedList(parts) {
  return h(
    'details',
    { class: 'panel unconfirmed' },
    h('summary', {
      text: `Other runtimes (${parts.length}): their precedence is not verified, so Loadout writes nothing of its own for them`,
    }),
    h(
      'ul',
      {},
      parts.map((part) => h('li', {}, h('span', { class: 'name', text: part.runtime }), ` would see ${part.sees.length} skills`)),
    ),
  );
}

/** Entries apply moved away, newest first; Restore puts one back where it was (never over something). */
function trashSection(trash, context) {
  const headingId = uniqueId('trash');
  return h(
    'section',
    { class: 'group trash', 'aria-labelledby': headingId },
    h('h2', { id: headingId, text: 'Trash' }),
    trash.retired.length === 0
      ? h('p', { class: 'empty', text: 'Nothing retired.' })
      : h(
          'ul',
          { class: 'rows', 'aria-labelledby': headingId },
          trash.retired.map((entry) => {
            const restore = h('button', {
              type: 'button',
              class: 'button small',
              text: 'Restore',
              'aria-label': `Restore ${entry.name} to ${entry.runtime}`,
              dataset: { focusKey: `restore:${entry.id}` },
            });
            restore.addEventListener('click', async () => {
              try {
                const { restored } = await request('POST /api/runtimes/trash/:id/restore', { params: { id: entry.id } });
                context.notify(`Restored ${restored.name} to ${restored.path}.`);
              } catch (error) {
                context.fail(`Could not restore ${entry.name}`, error);
              }
              await context.refresh();
            });
            return h(
              'li',
              { class: 'row trash-row', dataset: { id: entry.id } },
              h(
                'div',
                {},
                h('span', { class: 'name', text: entry.name }),
                ' ',
                h('span', { class: 'id', text: `${entry.kind} · ${entry.runtime} · retired ${relativeTime(entry.retiredAt)}` }),
                h('p', { class: 'description' }, prose(entry.reason)),
                h('p', { class: 'meta wrap' }, h('code', { text: entry.path })),
              ),
              restore,
            );
          }),
        ),
    trash.damaged.map((entry) => h('p', { class: 'warning', text: `Damaged trash entry ${entry.id}: ${entry.problem}` })),
  );
}

function diagnosticsSection(diagnostics, roots) {
  const headingId = uniqueId('diagnostics');
  return h(
    'section',
    { class: 'group session-diagnostics', 'aria-labelledby': headingId },
    h('h2', { id: headingId, text: 'Diagnostics' }),
    diagnostics.length === 0 ? h('p', { class: 'empty', text: 'The session has nothing to report.' }) : findingList(diagnostics, roots),
  );
}

/**
 * Diagnostics as a list: severity, what happened, whose it is (the plugin whose folder it is
 * about), and the fix, each written for a person (backticks become code).
 *
 * @param {readonly Diagnostic[]} diagnostics
 * @param {readonly { dir: string, plugin: string | null }[]} roots
 */
function findingList(diagnostics, roots) {
  return h(
    'ul',
    { class: 'findings' },
    diagnostics.map((diagnostic) => {
      const { problem, fix } = splitFix(diagnostic.message);
      const plugin = pluginOf(diagnostic.path, roots);
      return h(
        'li',
        { class: `finding severity-${diagnostic.severity}`, dataset: { code: diagnostic.code } },
        h('span', { class: 'severity', text: diagnostic.severity }),
        h(
          'div',
          {},
          h('p', {}, prose(problem)),
          h('p', { class: 'meta' }, h('span', { text: plugin === null ? 'Loadout' : `Plugin ${plugin}` }), ` · ${diagnostic.code}`),
          fix === null ? null : h('p', { class: 'fix' }, h('span', { class: 'fix-label', text: 'Fix: ' }), prose(fix)),
        ),
      );
    }),
  );
}

/** The plugin a diagnostic's path belongs to: a plugin root holding it, or `<plugins>/NAME` in a redacted path. */
function pluginOf(where, roots) {
  if (typeof where !== 'string') return null;
  const redacted = /^<plugins>\/([^/]+)/.exec(where);
  if (redacted !== null) return redacted[1] ?? null;
  const root = roots.find((candidate) => candidate.plugin !== null && (where === candidate.dir || where.startsWith(`${candidate.dir}/`)));
  return root?.plugin ?? null;
}
