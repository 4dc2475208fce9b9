// Which runtimes no longer hold what the session says, shown after the owner changed something:
// a switch, a move, an install or an approval leaves the runtimes' folders as they were until
// `apply` runs, so the screen says so, with a link to the Runtimes view.

import { request } from './api.js';
import { h, replaceChildren } from './dom.js';

/** Requests that change what the runtimes should hold; a task run or a read of the inbox does not. */
const CHANGES_NOTHING_FOR_RUNTIMES =
  /^(?:POST \/api\/tasks\/[^/]+\/runs|POST \/api\/jobs\/|POST \/api\/notifications\/|POST \/api\/pipelines)/;

/**
 * The verified runtimes of a plan that do not match it: something to write, or a conflict or a
 * block that keeps it from being written.
 *
 * @param {import('../types/wire.js').ApplyResult} plan
 * @returns {string[]}
 */
export function outOfDate(plan) {
  return plan.runtimes
    .filter((part) => part.verified && (part.status !== 'ok' || part.changes.some((change) => change.action !== 'skip')))
    .map((part) => part.runtime);
}

/**
 * Starts watching: after every change the screen makes (api.js announces it), the plan is checked
 * once more (`apply --check`, which writes nothing) and the hint and the tab's count follow it.
 * The Runtimes view reports a plan it read itself through `show`.
 *
 * @param {{ project: string | null, hasToken(): boolean }} context
 */
export function watchRuntimeDrift(context) {
  const hint = /** @type {HTMLElement} */ (document.getElementById('runtimes-hint'));
  const count = /** @type {HTMLElement} */ (document.getElementById('runtimes-count'));
  let checking = 0;

  /** @param {string[]} stale */
  function show(stale) {
    count.hidden = stale.length === 0;
    count.textContent = String(stale.length);
    count.setAttribute('aria-label', `${stale.length} out of date`);
    hint.hidden = stale.length === 0 || location.hash === '#runtimes';
    replaceChildren(
      hint,
      h('span', { text: `Out of date: ${stale.join(', ')}.` }),
      ' ',
      h('a', { href: '#runtimes', text: 'Review and apply in Runtimes' }),
    );
  }

  async function check() {
    if (!context.hasToken()) return;
    const run = ++checking;
    try {
      const plan = await request('GET /api/runtimes', { query: { project: context.project } });
      if (run === checking) show(outOfDate(plan));
    } catch {
      // The hint is advice; the Runtimes view reports a plan that cannot be made.
    }
  }

  window.addEventListener('loadout:changed', (event) => {
    const route = /** @type {CustomEvent<{ route: string }>} */ (event).detail.route;
    if (!CHANGES_NOTHING_FOR_RUNTIMES.test(route)) void check();
  });
  window.addEventListener('hashchange', () => {
    if (location.hash === '#runtimes') hint.hidden = true;
  });
  return { show, check };
}
