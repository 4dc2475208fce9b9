import { createHash } from 'node:crypto';
import path from 'node:path';
import type { KindDocument } from './CapabilityKind.js';

/** The longest id or slug Loadout produces. */
export const MAX_ID_LENGTH = 64;

/**
 * Lower-case ASCII letters and digits; every other run of characters folds to one `-`; trimmed of
 * `-` at both ends and cut to {@link MAX_ID_LENGTH}. May be empty (a name with no ASCII letters).
 */
const ALREADY_SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function slugify(text: string): string {
  // Most names are written as slugs already; one test is cheaper than three replacements.
  if (text.length <= MAX_ID_LENGTH && ALREADY_SLUG.test(text)) return text;
  const folded = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return folded.slice(0, MAX_ID_LENGTH).replace(/-+$/, '');
}

/**
 * The one function that computes a capability's id, by its kind's declared rule. `name` rule: the
 * slug of its written `name` when that slug is non-empty, else the slug of the path stem (the
 * folder of a folder entry's document), else `h-` and 8 hex of a hash of the path relative to its
 * root. `entry` rule: the path stem as it is.
 *
 * @param relativePath the document's path relative to its root, e.g. `skills/pdf/SKILL.md`
 */
export function capabilityId(name: unknown, relativePath: string, document: KindDocument): string {
  if (document.idRule === 'entry') return pathStem(relativePath, document.file);
  const fromName = typeof name === 'string' ? slugify(name) : '';
  if (fromName !== '') return fromName;
  const fromStem = slugify(pathStem(relativePath, document.file));
  if (fromStem !== '') return fromStem;
  const normalized = relativePath.split(path.sep).join('/');
  return `h-${createHash('sha256').update(normalized).digest('hex').slice(0, 8)}`;
}

/**
 * The stem a document is named by: its folder when it is the kind's folder document
 * (`documentFile`, compared case-insensitively), else the file name without its extension.
 */
export function pathStem(relativePath: string, documentFile?: string): string {
  const base = path.basename(relativePath);
  if (documentFile !== undefined && base.toLowerCase() === documentFile.toLowerCase()) return path.basename(path.dirname(relativePath));
  const ext = path.extname(base);
  return ext === '' ? base : base.slice(0, -ext.length);
}

/**
 * The name a document is shown by: its written name, else its id. A Markdown document's name
 * counts only when it is not blank; a JSON document's is shown as its schema accepted it.
 */
export function displayNameOf(written: unknown, id: string, document: KindDocument): string {
  if (typeof written !== 'string') return id;
  return document.nameField === 'json' || written.trim() !== '' ? written : id;
}

/** The key under which two ids or display names collide: they compare case-insensitively. */
export function collisionKey(idOrName: string): string {
  return idOrName.toLowerCase();
}

/** The separator between a plugin and its capability's id in a qualified name, as the clients write it (`discord:access`). */
export const PLUGIN_SEPARATOR = ':';

/** Who provides a record, as far as its name goes: its id, and its plugin (null for the owner's or the project's). */
export interface NamedRecord {
  readonly id: string;
  readonly plugin: string | null;
}

/**
 * A capability's full identity: a plugin's capability keeps its plugin (`discord:access`), the
 * owner's and the project's are their id alone. Two plugins may each ship `access`; their
 * qualified ids never collide.
 */
export function qualifiedId(record: NamedRecord): string {
  return record.plugin === null ? record.id : `${record.plugin}${PLUGIN_SEPARATOR}${record.id}`;
}

/** `plugin:id` split at its first separator; null when `text` names no plugin. */
export function splitQualifiedId(text: string): { readonly plugin: string; readonly id: string } | null {
  const at = text.indexOf(PLUGIN_SEPARATOR);
  if (at <= 0 || at === text.length - 1) return null;
  return { plugin: text.slice(0, at), id: text.slice(at + 1) };
}

/**
 * Whether `name` names `record`: its id (case-insensitively, as ids collide), or its qualified id
 * `plugin:id` when it comes from a plugin.
 */
export function namesRecord(name: string, record: NamedRecord): boolean {
  const key = collisionKey(name);
  if (collisionKey(record.id) === key) return true;
  if (record.plugin === null) return false;
  const qualified = splitQualifiedId(name);
  return (
    qualified !== null &&
    collisionKey(qualified.plugin) === collisionKey(record.plugin) &&
    collisionKey(qualified.id) === collisionKey(record.id)
  );
}
