import path from 'node:path';
import { capabilityId, collisionKey, MAX_ID_LENGTH, slugify } from '@loadout/kernel';
import { SERVER_ID } from '@loadout/servers';
import { NoPlacementError } from './LevelErrors.js';
import type { TransferableKind } from './TransferRequest.js';

/** The highest suffix tried before a move is refused. */
export const MAX_SUFFIX = 999;
/** A file name's limit on common file systems, in bytes. */
const MAX_FILE_NAME_BYTES = 255;
/** The longest display name a server definition may hold (its schema's limit). */
const MAX_SERVER_NAME = 200;

/** The document being moved, as the planner needs it. */
export interface PlacementSource {
  readonly kind: TransferableKind;
  /** Its name in the kind folder: the folder of a folder skill, else the file name. */
  readonly entryName: string;
  /** True for a `SKILL.md` folder skill. */
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
 * one the scanner will compute for the exact path it would occupy ({@link capabilityId} for a
 * skill, the file stem for a server), so a Chinese name, or a name whose slug another document
 * owns, is judged by the id it will really have, not by the file name chosen.
 *
 * Candidates, first free one wins: the document as it is; then for n = 2, 3 … the entry renamed
 * `<stem>-n` (only when the display name is free), then the name rewritten `<name> (n)` with the
 * entry renamed too (a server: first with its file kept, as its id is its stem). A display
 * name that collides is always suffixed; an id that collides takes `-n`, through the name when the
 * id comes from it. Suffixes stay within the 64-character id budget.
 */
export function planPlacement(source: PlacementSource, destination: PlacementDestination): Placement {
  const names = new Set(destination.names.map(collisionKey));
  const ids = new Set(destination.records.map((record) => collisionKey(record.id)));
  const displays = new Set(destination.records.map((record) => collisionKey(record.name)));
  const ext = source.isFolder ? '' : path.extname(source.entryName);
  const stem = source.entryName.slice(0, source.entryName.length - ext.length);

  const candidate = (entryStem: string, rename: string | null): Placement | null => {
    const entryName = `${entryStem}${ext}`;
    if (names.has(collisionKey(entryName)) || Buffer.byteLength(entryName) > MAX_FILE_NAME_BYTES) return null;
    const relativePath = source.isFolder
      ? path.join(destination.kindFolder, entryName, 'SKILL.md')
      : path.join(destination.kindFolder, entryName);
    const written = rename ?? source.writtenName;
    let id: string;
    let displayName: string;
    if (source.kind === 'server') {
      if (!SERVER_ID.test(entryStem)) return null;
      id = entryStem;
      displayName = typeof written === 'string' ? written : source.displayName;
    } else {
      id = capabilityId(written, relativePath);
      displayName = typeof written === 'string' && written.trim() !== '' ? written : id;
    }
    if (ids.has(collisionKey(id)) || displays.has(collisionKey(displayName))) return null;
    return { entryName, relativePath, id, displayName, rename };
  };

  const mustRename = displays.has(collisionKey(source.displayName));
  if (!mustRename) {
    const asIs = candidate(stem, null);
    if (asIs !== null) return asIs;
  }
  for (let n = 2; n <= MAX_SUFFIX; n += 1) {
    const newStem = suffixedStem(source.kind, stem, ext, n);
    const newName = suffixedName(source.kind, source.displayName, n);
    // A skill renamed for a collision has a new id, and its entry follows it; a server's id is
    // its stem, so a server whose display name alone collides keeps its file.
    const renamed =
      source.kind === 'skill' ? (candidate(newStem, newName) ?? candidate(stem, newName)) : (candidate(stem, newName) ?? candidate(newStem, newName));
    const found = (mustRename ? null : candidate(newStem, null)) ?? renamed;
    if (found !== null) return found;
  }
  throw new NoPlacementError(
    `${source.kind} "${source.displayName}": every suffix up to ${MAX_SUFFIX} is taken at the destination; rename it first`,
  );
}

/**
 * `<name> (n)`. For a skill whose name has a slug, the name is cut (at a character, before the
 * suffix) so that its id, `<slug>-n`, stays within the 64-character budget; a server's name stays
 * within its schema's 200 characters.
 */
export function suffixedName(kind: TransferableKind, name: string, n: number): string {
  const suffix = ` (${n})`;
  const fits =
    kind === 'server'
      ? (prefix: string) => prefix.length + suffix.length <= MAX_SERVER_NAME
      : (prefix: string) => slugify(prefix) === '' || slugify(prefix).length + 1 + String(n).length <= MAX_ID_LENGTH;
  return `${longestPrefix(name, fits).trimEnd()}${suffix}`;
}

/**
 * `<stem>-n`, cut so a skill's stem-derived id keeps its suffix within the id budget, a server's
 * id stays a valid 64-character id, and the file name stays within 255 bytes.
 */
export function suffixedStem(kind: TransferableKind, stem: string, ext: string, n: number): string {
  const suffix = `-${n}`;
  const fits = (prefix: string): boolean => {
    if (Buffer.byteLength(`${prefix}${suffix}${ext}`) > MAX_FILE_NAME_BYTES) return false;
    if (kind === 'server') return prefix.length + suffix.length <= MAX_ID_LENGTH;
    return slugify(prefix).length + suffix.length <= MAX_ID_LENGTH;
  };
  return `${longestPrefix(stem, fits)}${suffix}`;
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
