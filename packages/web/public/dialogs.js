// Modal dialogs: the native <dialog> made modal (the page behind it is inert), Tab and Shift+Tab
// kept inside it, Escape cancels, and focus goes back to whatever opened it.

import { h, uniqueId } from './dom.js';

const FOCUSABLE =
  'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * @typedef {object} DialogOptions
 * @property {string} title
 * @property {Array<Node | string | null | false>} body
 * @property {string} [submitLabel]
 * @property {string} [cancelLabel]
 * @property {(form: HTMLFormElement) => unknown} [onSubmit]
 * @property {boolean} [danger]
 * @property {boolean} [wide]
 */

/**
 * Opens a modal dialog.
 * - `title`: the heading, also its accessible name
 * - `body`: nodes inside the form
 * - `submitLabel`: the primary button; `onSubmit(form)` runs when it is pressed and may throw an
 *   error (shown in the dialog, which stays open) or return normally (the dialog closes)
 * - `danger`: styles the primary button as destructive
 * Resolves with true when submitted, false when cancelled.
 *
 * @param {DialogOptions} options
 * @returns {Promise<boolean>}
 */
export function openDialog({
  title,
  body,
  submitLabel = 'Save',
  cancelLabel = 'Cancel',
  onSubmit = () => undefined,
  danger = false,
  wide = false,
}) {
  const opener = document.activeElement;
  const titleId = uniqueId('dialog-title');
  const error = h('p', { class: 'dialog-error', role: 'alert' });
  error.hidden = true;
  const submit = h('button', { type: 'submit', class: danger ? 'button danger' : 'button primary', text: submitLabel });
  const cancel = h('button', { type: 'button', class: 'button', text: cancelLabel });
  const form = h(
    'form',
    { class: 'dialog-form', novalidate: true },
    h('h2', { id: titleId, text: title }),
    h('div', { class: 'dialog-body' }, body),
    error,
    h('div', { class: 'dialog-actions' }, cancel, submit),
  );
  const dialog = h('dialog', { class: wide ? 'dialog wide' : 'dialog', 'aria-labelledby': titleId }, form);
  document.body.append(dialog);

  return new Promise((resolve) => {
    let submitted = false;
    const finish = () => {
      dialog.remove();
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
      else document.querySelector('main')?.focus();
      resolve(submitted);
    };
    dialog.addEventListener('close', finish, { once: true });
    cancel.addEventListener('click', () => dialog.close());
    dialog.addEventListener('keydown', (event) => {
      if (event.key !== 'Tab') return;
      const items = [...dialog.querySelectorAll(FOCUSABLE)].filter((item) => item.offsetParent !== null || item === document.activeElement);
      if (items.length === 0) return;
      const first = items[0];
      const last = items[items.length - 1];
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    });
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!form.reportValidity()) return;
      error.hidden = true;
      submit.disabled = true;
      form.setAttribute('aria-busy', 'true');
      try {
        await onSubmit(form);
        submitted = true;
        dialog.close();
      } catch (failure) {
        error.textContent = failure instanceof Error ? failure.message : String(failure);
        error.hidden = false;
      } finally {
        submit.disabled = false;
        form.removeAttribute('aria-busy');
      }
    });
    dialog.showModal();
    const first = form.querySelector('[autofocus]') ?? form.querySelector('input, textarea, select') ?? submit;
    first.focus();
  });
}

/** Asks before something that cannot be undone. Resolves true when confirmed. */
export function confirmAction({ title, message, confirmLabel, onConfirm }) {
  return openDialog({
    title,
    body: Array.isArray(message) ? message : [h('p', { text: message })],
    submitLabel: confirmLabel,
    danger: true,
    onSubmit: onConfirm,
  });
}

/** A labelled form field. `control` is an input/textarea/select; `hint` a short line below it. */
export function field(label, control, hint) {
  const id = control.id || uniqueId('field');
  control.id = id;
  const hintId = hint === undefined ? undefined : `${id}-hint`;
  if (hintId !== undefined) control.setAttribute('aria-describedby', hintId);
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id, text: label }),
    control,
    hint === undefined ? null : h('p', { class: 'hint', id: hintId, text: hint }),
  );
}
