// The capability view's rows as data, built once per read of the server: each row's state (on,
// off, held, shadowed), its group keys and a lower-case text to search, so that a filter
// keystroke is one pass over plain objects, however many capabilities there are.

import { compareIds, shadowsOf } from './records.js';

/** The states a row can be in, in the order the filter offers them. */
export const STATES = ['on', 'off', 'held', 'shadowed'];

/** A capability's state on the screen: held is its own, neither on nor off (it is switched on but does not run). */
export function stateOf(item) {
  if (item.shadowedBy) return 'shadowed';
  if (item.held) return 'held';
  return item.enabled ? 'on' : 'off';
}

/** Which plugin group a row belongs to: the project's own, the owner's, or a plugin's. */
export function sourceKey(item) {
  if (item.plugin !== null) return `plugin:${item.plugin}`;
  return item.level === 'project' ? 'project' : 'owner';
}

/**
 * @param {any[]} entries capability.state's entries
 * @param {Map<string, any>} listed records by path (descriptions and shadowed copies' ids)
 */
export function buildModel(entries, listed) {
  const describe = (path) => listed.get(path)?.description ?? '';
  const visible = entries.filter(
    (entry) => entry.installed !== false && entry.decidedBy !== 'plugin-disabled' && entry.decidedBy !== 'plugin-not-installed',
  );
  const kinds = [...new Set(entries.map((entry) => entry.kind))];
  const rows = [...visible, ...visible.flatMap((entry) => shadowsOf(entry, listed))]
    .sort((a, b) => compareIds(a.id, b.id) || (a.shadowedBy ? 1 : 0) - (b.shadowedBy ? 1 : 0))
    .map((item) => ({
      item,
      kind: item.kind,
      state: stateOf(item),
      level: item.level === 'project' ? 'project' : 'global',
      source: sourceKey(item),
      text: [item.name, item.id, describe(item.path), item.plugin ?? 'owner'].join('\n').toLowerCase(),
    }));
  /** @type {Record<string, number>} */
  const stateCounts = Object.fromEntries(STATES.map((state) => [state, 0]));
  for (const row of rows) stateCounts[row.state] = (stateCounts[row.state] ?? 0) + 1;
  return { visible, hiddenByPlugin: entries.length - visible.length, kinds, rows, stateCounts, describe };
}

/** The usage filter's choices: used in the ledger's window, or not. */
export const USAGE_CHOICES = ['used', 'unused'];

/**
 * The ledger's line for a row's capability, by `kind/id`, from `GET /api/usage`; null while the
 * ledger has not answered (then the usage filter lets every row through).
 * @param {any} report
 * @returns {Map<string, any> | null}
 */
export function usageByKey(report) {
  if (report === null) return null;
  return new Map(report.capabilities.filter((entry) => entry.offered).map((entry) => [`${entry.kind}/${entry.id}`.toLowerCase(), entry]));
}

/** The kinds the usage ledger counts uses of; the others (affordances, hooks …) are neither used nor unused. */
const LEDGER_KINDS = new Set(['skill', 'command', 'agent', 'task', 'server']);

/**
 * The ledger's line for one capability: undefined when the ledger is not known or does not count
 * its kind, null when it counts no use of it.
 * @param {Map<string, any> | null} usage
 */
export function usageEntryOf(usage, kind, id) {
  if (usage === null || !LEDGER_KINDS.has(kind)) return undefined;
  return usage.get(`${kind}/${id}`.toLowerCase()) ?? null;
}

/** Whether a row's capability was used in the window, or undefined when that is not known (a shadowed copy is never the one used). */
function usedOf(row, usage) {
  if (row.state === 'shadowed') return undefined;
  const entry = usageEntryOf(usage, row.kind, row.item.id);
  return entry === undefined ? undefined : (entry?.invoked ?? 0) > 0;
}

/**
 * The rows the filters let through, in the model's order. A capability whose use is not known
 * (the ledger has not answered, or does not count its kind) is left out by the used and unused filters.
 * @param {any[]} rows
 * @param {{ kind: string, state: string, text: string, usage?: string }} filters
 * @param {Map<string, any> | null} [usage]
 */
export function filterRows(rows, { kind, state, text, usage: usageFilter = 'all' }, usage = null) {
  const wanted = text.trim().toLowerCase();
  return rows.filter(
    (row) =>
      (kind === 'all' || row.kind === kind) &&
      (state === 'all' || row.state === state) &&
      (wanted === '' || row.text.includes(wanted)) &&
      (usageFilter === 'all' || usedOf(row, usage) === (usageFilter === 'used')),
  );
}
