// A task's input as a form, drawn from the JSON Schema the task declares (`input:` in TASK.md). The
// form only collects values: the server checks them against the same schema on every path (CLI,
// HTTP, screen, MCP) and its refusal is what the owner reads, so the screen never holds a second,
// possibly different, copy of the rules.

import { field } from './dialogs.js';
import { h } from './dom.js';

/** @typedef {Readonly<Record<string, any>>} JsonSchema */

/** The property types a form field can say; a schema with any other (an object, an array) keeps the JSON box. */
const FIELD_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * Whether `schema` is an object of plain properties a form can show.
 *
 * @param {JsonSchema | null} schema
 * @returns {schema is JsonSchema}
 */
export function formFits(schema) {
  if (schema === null || schema.type !== 'object' || typeof schema.properties !== 'object' || schema.properties === null) return false;
  const properties = Object.values(schema.properties);
  return (
    properties.length > 0 &&
    properties.every((property) => typeof property === 'object' && property !== null && fieldType(property) !== null)
  );
}

/** @param {JsonSchema} property */
function fieldType(property) {
  if (Array.isArray(property.enum) && property.enum.every((value) => typeof value === 'string')) return 'enum';
  return FIELD_TYPES.has(property.type) ? property.type : null;
}

/** What the schema says of a property, in words, under its field. @param {JsonSchema} property @param {boolean} required */
function describe(property, required) {
  const limits = [
    required ? 'required' : 'optional',
    property.minimum === undefined ? null : `at least ${property.minimum}`,
    property.maximum === undefined ? null : `at most ${property.maximum}`,
    property.minLength === undefined ? null : `at least ${property.minLength} characters`,
    property.maxLength === undefined ? null : `at most ${property.maxLength} characters`,
  ].filter(Boolean);
  const text = typeof property.description === 'string' ? `${property.description} ` : '';
  return `${text}(${limits.join(', ')})`;
}

/**
 * The fields of `schema`'s properties, filled from `values` (what the owner typed before a
 * re-render), each reporting changes through `remember`; and `read`, which turns them into the
 * input object: empty fields are left out, numbers sent as numbers (a value that is not one is
 * sent as typed, for the server to refuse in its own words).
 *
 * @param {JsonSchema} schema
 * @param {Record<string, string | boolean>} values
 * @param {(name: string, value: string | boolean) => void} remember
 */
export function inputFields(schema, values, remember) {
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  /** @type {Array<{ name: string, type: string, control: HTMLInputElement | HTMLSelectElement }>} */
  const controls = [];
  const nodes = Object.entries(schema.properties).map(([name, property]) => {
    const type = /** @type {string} */ (fieldType(property));
    const id = `run-input-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
    if (type === 'boolean') {
      const box = h('input', { type: 'checkbox', id, name });
      box.checked = values[name] === true || (values[name] === undefined && property.default === true);
      box.addEventListener('change', () => remember(name, box.checked));
      controls.push({ name, type, control: box });
      return h('div', { class: 'check-field' }, box, h('label', { for: id, text: `${name} ${describe(property, required.has(name))}` }));
    }
    const control =
      type === 'enum'
        ? h(
            'select',
            { id, name },
            required.has(name) ? null : h('option', { value: '', text: '—' }),
            property.enum.map((value) => h('option', { value, text: value })),
          )
        : h('input', {
            id,
            name,
            type: 'text',
            inputmode: type === 'string' ? null : type === 'integer' ? 'numeric' : 'decimal',
            autocomplete: 'off',
            spellcheck: 'false',
          });
    const typed = values[name];
    control.value = typeof typed === 'string' ? typed : property.default === undefined ? '' : String(property.default);
    control.addEventListener(type === 'enum' ? 'change' : 'input', () => remember(name, control.value));
    controls.push({ name, type, control });
    return field(name, control, describe(property, required.has(name)));
  });
  const read = () => {
    /** @type {Record<string, unknown>} */
    const input = {};
    for (const { name, type, control } of controls) {
      if (type === 'boolean') {
        input[name] = /** @type {HTMLInputElement} */ (control).checked;
        continue;
      }
      const text = control.value.trim();
      if (text === '') continue;
      input[name] = (type === 'number' || type === 'integer') && Number.isFinite(Number(text)) ? Number(text) : control.value;
    }
    return input;
  };
  return { nodes: h('div', { class: 'input-fields' }, nodes), read };
}
