// Consent the owner can read: before approving a plugin or trusting a project, the dialog lists
// every capability that will be able to run, each with its command line or URL and the files that
// run, what `audit` notices in them, and for a plugin what changed since its last approval. The
// approval sends back the commit the dialog showed, so a plugin that moved in between is refused
// (PLUGIN_APPROVAL_STALE) rather than approved unseen.

import { request } from './api.js';
import { openDialog } from './dialogs.js';
import { baseName, h } from './dom.js';
import { prose } from './prose.js';

/** @typedef {import('../types/wire.js').ConsentEntry} ConsentEntry */

/**
 * Reads what approving `plugin` lets run, shows it, and approves exactly that commit when the
 * owner says so. Resolves true once approved.
 *
 * @param {string} plugin
 */
export async function approvePluginWithConsent(plugin) {
  const review = await request('GET /api/plugins/:name/review', { params: { name: plugin } });
  return openDialog({
    title: `Approve ${plugin}?`,
    wide: true,
    body: [
      h(
        'p',
        {},
        `Approving lets every task, server and skill script of ${plugin} below run as it is at commit `,
        h('code', { class: 'commit', text: review.commit.slice(0, 12) }),
        '. A later update that changes what one of them runs holds it again.',
      ),
      consentList(review.capabilities),
      changesSince(review),
    ],
    submitLabel: 'Approve',
    onSubmit: async () => {
      await request('POST /api/plugins/:name/approve', { params: { name: plugin }, body: { commit: review.commit } });
    },
  });
}

/**
 * Reads what trusting `project` lets run (its own tasks, servers and skills with scripts), shows
 * it, and trusts the project when the owner says so. Resolves true once trusted.
 *
 * @param {string} project
 */
export async function trustProjectWithConsent(project) {
  const review = await request('GET /api/trust/review', { query: { project } });
  return openDialog({
    title: `Trust ${baseName(review.project)}?`,
    wide: true,
    body: [
      h(
        'p',
        {},
        'Trusting ',
        h('code', { text: review.project }),
        ' lets everything below run, as it is now and as it changes: trust follows the project, not one version of it.',
      ),
      consentList(review.capabilities),
    ],
    submitLabel: 'Trust',
    onSubmit: async () => {
      await request('POST /api/trust', { body: { project: review.project } });
    },
  });
}

/** @param {readonly ConsentEntry[]} entries */
function consentList(entries) {
  if (entries.length === 0) return h('p', { class: 'empty', text: 'Nothing in it runs anything.' });
  return h(
    'ul',
    { class: 'consent-list', 'aria-label': 'What will be able to run', tabindex: '0' },
    entries.map((entry) =>
      h(
        'li',
        { class: 'consent-item', dataset: { kind: entry.kind, id: entry.id } },
        h(
          'div',
          {},
          h('span', { class: 'name', text: entry.name }),
          ' ',
          h('span', { class: 'id', text: `${entry.kind} · ${entry.status === 'held' ? 'held now' : 'approved'}` }),
        ),
        entry.runs === '' ? null : h('p', { class: 'runs', 'aria-label': `What ${entry.name} runs` }, entry.runs),
        entry.files.length === 0
          ? null
          : h(
              'ul',
              { class: 'files', 'aria-label': `Files ${entry.name} runs` },
              entry.files.map((file) => h('li', {}, h('code', { text: file }))),
            ),
        entry.findings.map((finding) =>
          h(
            'p',
            { class: 'audit-finding' },
            h('strong', { text: 'Audit: ' }),
            finding.file === undefined ? null : h('code', { text: finding.file }),
            finding.file === undefined ? '' : ' ',
            prose(finding.message),
          ),
        ),
      ),
    ),
  );
}

/** @param {import('../types/wire.js').PluginReview} review */
function changesSince(review) {
  if (review.approvedCommit === null)
    return h('p', { class: 'hint', text: 'It was never approved before: everything above is new to you.' });
  if (review.diff === null || review.diff === '') {
    return h(
      'p',
      { class: 'hint' },
      'Nothing it runs changed since the approval at ',
      h('code', { text: review.approvedCommit.slice(0, 12) }),
      '.',
    );
  }
  return h(
    'details',
    { class: 'consent-changes', open: true },
    h('summary', {}, 'What changed since the approval at ', h('code', { text: review.approvedCommit.slice(0, 12) })),
    h('pre', { class: 'consent-diff', tabindex: '0', text: review.diff }),
    review.truncated ? h('p', { class: 'hint', text: 'The diff is cut here; git in the plugin’s folder shows the rest.' }) : null,
  );
}
