// Building the page from data. Every text goes in through textContent or an attribute, never as
// markup: a capability's name or a task's output is data and must never become code in the page.

/**
 * Makes an element. `props` keys: `class`, `text`, `on<Event>` handlers, `dataset`, booleans for
 * boolean attributes (`hidden: true`), everything else as an attribute. Children may be strings,
 * nodes, arrays, or null/false (skipped).
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') element.className = value;
    else if (key === 'text') element.textContent = value;
    else if (key === 'dataset') Object.assign(element.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(key, '');
    else element.setAttribute(key, String(value));
  }
  append(element, children);
  return element;
}

function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  }
}

/** Replaces everything inside `parent` with `children`. */
export function replaceChildren(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
}

/** An id that is unique on this page, for label/aria pairings. */
let counter = 0;
export function uniqueId(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** "3 s ago", "5 min ago", else a local date and time. */
export function relativeTime(iso) {
  if (typeof iso !== 'string' || iso === '') return '';
  const then = new Date(iso);
  const seconds = Math.round((Date.now() - then.getTime()) / 1000);
  if (Number.isNaN(seconds)) return iso;
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return then.toLocaleString();
}

/** The last folder of a path, for short labels: `/home/me/work/app` → `app`. */
export function baseName(dir) {
  const parts = String(dir)
    .split(/[\\/]+/)
    .filter(Boolean);
  return parts.length === 0 ? String(dir) : parts[parts.length - 1];
}

/**
 * The `data-focus-key` of `element` or of its nearest ancestor that has one: what a re-render
 * gives focus back to.
 *
 * @param {Element | null} element
 * @returns {string | null}
 */
export function focusKeyOf(element) {
  const keyed = /** @type {HTMLElement | null | undefined} */ (element?.closest?.('[data-focus-key]'));
  return keyed?.dataset.focusKey ?? null;
}

/**
 * Focuses the element inside `parent` with that focus key, if it is still there.
 *
 * @param {ParentNode} parent
 * @param {string} key
 */
export function focusByKey(parent, key) {
  /** @type {HTMLElement | null} */ (parent.querySelector(`[data-focus-key="${window.CSS.escape(key)}"]`))?.focus();
}
