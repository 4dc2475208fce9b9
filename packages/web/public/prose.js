// Messages written for the command line, shown on the screen: a span in backticks is code, and
// one that starts with `loadout ` is a command the owner can copy, never a pair of raw backticks.

import { h } from './dom.js';

/**
 * `text` as nodes: the spans between backticks become `<code>` (class `command` for a `loadout`
 * command line), the rest stays text. An unpaired backtick is kept as it is.
 *
 * @param {string} text
 * @returns {Array<Node | string>}
 */
export function prose(text) {
  const parts = String(text).split('`');
  /** @type {Array<Node | string>} */
  const nodes = [];
  parts.forEach((part, index) => {
    const isCode = index % 2 === 1 && index < parts.length - 1;
    if (isCode) nodes.push(h('code', { class: /^loadout\b/.test(part) ? 'command' : null, text: part }));
    else if (index % 2 === 1) nodes.push(`\`${part}`);
    else if (part !== '') nodes.push(part);
  });
  return nodes;
}

/** Words a diagnostic's last clause starts with when it says what to do. */
const FIX_VERBS =
  /^(?:run|remove|rename|move|give|set|unset|make|write|add|approve|trust|turn|install|fix|use|pass|delete|edit|see|restore|update|enable|disable|re-?run)\b/i;

/**
 * Splits a message into what happened and what to do: the CLI's diagnostics end with the fix as
 * their last clause ("…; rename one, make them identical, or turn Loadout's off").
 *
 * @param {string} message
 * @returns {{ problem: string, fix: string | null }}
 */
export function splitFix(message) {
  const text = String(message).trim();
  for (const separator of ['; ', '. ']) {
    const at = text.lastIndexOf(separator);
    if (at <= 0) continue;
    const tail = text.slice(at + separator.length).trim();
    if (FIX_VERBS.test(tail) || tail.startsWith('`loadout ')) return { problem: text.slice(0, at), fix: tail.replace(/\.$/, '') };
  }
  return { problem: text, fix: null };
}
