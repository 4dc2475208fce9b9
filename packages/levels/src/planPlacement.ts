import path from 'node:path';
import { capabilityId, collisionKey, displayNameOf, type KindDocument, MAX_ID_LENGTH, slugify } from '@loadout/kernel';
import { NoPlacementError, TransferRefusedError } from './LevelErrors.js';

/** The highest suffix tried before a move is refused. */
export const MAX_SUFFIX = 999;
/** A file name's limit on common file systems, in bytes. */
const MAX_FILE_NAME_BYTES = 255;
/**
 * The longest display name a rename writes when the name does not make the id (the `entry` rule):
 * what a server definition's schema accepts.
 */
const MAX_WRITTEN_NAME = 200;

/** The document being moved, as the planner needs it. */
export interface PlacementSource {
  /** The kind's singular name, for messages. */
  readonly kind: string;
  /** How the kind lays out and names its documents. */
  readonly document: KindDocument;
  /** Its name in the kind folder: the folder of a folder entry, else the file name. */
  readonly entryName: string;
  /** True when the entry is a folder holding the kind's document file (a folder skill). */
  readonly isFolder: boolean;
  /** The `name` the document holds, as written (anything, or undefined when it has none). */
  readonly writtenName: unknown;
  /** The name the scanner shows for it. */
  readonly displayName: string;
}

/** What the destination root's kind folder already holds. */
export interface PlacementDestination {
  /** The kind folder's name under its root, e.g. `skills`. */
  readonly kindFolder: string;
  /** Every name in the kind folder, hidden ones included. */
  readonly names: readonly string[];
  readonly records: readonly { readonly id: string; readonly name: string }[];
}

/** Where and as what a document will land. */
export interface Placement {
  /** Its name in the destination kind folder. */
  readonly entryName: string;
  /** The document's path relative to the destination root, e.g. `skills/pdf-2/SKILL.md`. */
  readonly relativePath: string;
  /** The id the scanner will compute for it there. */
  readonly id: string;
  /** The name the scanner will show for it there. */
  readonly displayName: string;
  /** The name to write into the document, or null when the document keeps its bytes. */
  readonly rename: string | null;
}

/**
 * Plans where a document lands so that it collides with nothing at the destination: not an id, not
 * a display name (both case-insensitively), not a name in the folder. Each candidate's id is the
 * one the scanner will compute for the exact path it would occupy ({@link capabilityId} by the
 * kind's id rule), so a Chinese name, or a name whose slug another document owns, is judged by the
 * id it will really have, not by the file name chosen.
 *
 * Candidates, first free one wins: the document as it is; then for n = 2, 3 … the entry renamed
 * `<stem>-n` (only when the display name is free), then the name rewritten `<name> (n)` with the
 * entry renamed too (under the `entry` id rule — a server — first with its file kept, as its id is
 * its stem). A display name that collides is always suffixed; an id that collides takes `-n`,
 * through the name when the id comes from it. Suffixes stay within the 64-character id budget.
 */
export function planPlacement(source: PlacementSource, destination: PlacementDestination): Placement {
  const { document } = source;
  const names = new Set(destination.names.map(collisionKey));
  const ids = new Set(destination.records.map((record) => collisionKey(record.id)));
  const displays = new Set(destination.records.map((record) => collisionKey(record.name)));
  const ext = source.isFolder ? '' : path.extname(source.entryName);
  const stem = source.entryName.slice(0, source.entryName.length - ext.length);

  const candidate = (entryStem: string, rename: string | null): Placement | null => {
    const entryName = `${entryStem}${ext}`;
    if (names.has(collisionKey(entryName)) || Buffer.byteLength(entryName) > MAX_FILE_NAME_BYTES) return null;
    const relativePath = documentPath(destination.kindFolder, entryName, source);
    const written = rename ?? source.writtenName;
    const id = capabilityId(written, relativePath, document);
    const displayName = displayNameOf(written, id, document);
    if (ids.has(collisionKey(id)) || displays.has(collisionKey(displayName))) return null;
    return { entryName, relativePath, id, displayName, rename };
  };

  const mustRename = displays.has(collisionKey(source.displayName));
  if (!mustRename) {
    const asIs = candidate(stem, null);
    if (asIs !== null) return asIs;
  }
  for (let n = 2; n <= MAX_SUFFIX; n += 1) {
    const newStem = suffixedStem(document, stem, ext, n);
    const newName = suffixedName(document, source.displayName, n);
    // A document whose id comes from its name gets a new id when renamed, and its entry follows
    // it; under the entry rule the id is the stem, so one whose display name alone collides keeps
    // its file.
    const renamed =
      document.idRule === 'name'
        ? (candidate(newStem, newName) ?? candidate(stem, newName))
        : (candidate(stem, newName) ?? candidate(newStem, newName));
    const found = (mustRename ? null : candidate(newStem, null)) ?? renamed;
    if (found !== null) return found;
  }
  throw new NoPlacementError(
    `${source.kind} "${source.displayName}": every suffix up to ${MAX_SUFFIX} is taken at the destination; rename it first`,
  );
}

/**
 * `<name> (n)`. When the id comes from the name and the name has a slug, the name is cut (at a
 * character, before the suffix) so that its id, `<slug>-n`, stays within the 64-character budget;
 * under the entry rule the name stays within 200 characters.
 */
export function suffixedName(document: KindDocument, name: string, n: number): string {
  const suffix = ` (${n})`;
  const fits =
    document.idRule === 'entry'
      ? (prefix: string) => prefix.length + suffix.length <= MAX_WRITTEN_NAME
      : (prefix: string) => slugify(prefix) === '' || slugify(prefix).length + 1 + String(n).length <= MAX_ID_LENGTH;
  return `${longestPrefix(name, fits).trimEnd()}${suffix}`;
}

/**
 * `<stem>-n`, cut so a stem-derived id keeps its suffix within the id budget (under the entry rule
 * the stem is the id, so it stays a 64-character id), and the file name stays within 255 bytes.
 */
export function suffixedStem(document: KindDocument, stem: string, ext: string, n: number): string {
  const suffix = `-${n}`;
  const fits = (prefix: string): boolean => {
    if (Buffer.byteLength(`${prefix}${suffix}${ext}`) > MAX_FILE_NAME_BYTES) return false;
    if (document.idRule === 'entry') return prefix.length + suffix.length <= MAX_ID_LENGTH;
    return slugify(prefix).length + suffix.length <= MAX_ID_LENGTH;
  };
  return `${longestPrefix(stem, fits)}${suffix}`;
}

/**
 * A document's path relative to its root: the kind's document file inside a folder entry, else
 * the entry itself.
 */
export function documentPath(
  kindFolder: string,
  entryName: string,
  source: Pick<PlacementSource, 'kind' | 'document' | 'isFolder'>,
): string {
  if (!source.isFolder) return path.join(kindFolder, entryName);
  if (source.document.file === undefined) {
    throw new TransferRefusedError(`${kindFolder}/${entryName}: the ${source.kind} kind declares no document file for a folder entry`);
  }
  return path.join(kindFolder, entryName, source.document.file);
}

/** The longest prefix (whole characters) for which `fits` holds; `fits` is monotone in length. */
function longestPrefix(text: string, fits: (prefix: string) => boolean): string {
  if (fits(text)) return text;
  const chars = Array.from(text);
  let low = 0;
  let high = chars.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(chars.slice(0, middle).join(''))) low = middle;
    else high = middle - 1;
  }
  return chars.slice(0, low).join('');
}
