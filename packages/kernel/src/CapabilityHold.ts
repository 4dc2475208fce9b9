import type { CapabilityRecord } from './CapabilityKind.js';
import type { SessionScope } from './CapabilityFilter.js';
import { LoadoutError } from './LoadoutError.js';
import { changedPlaces } from './sameItems.js';
import { token } from './token.js';

/**
 * Why a runnable capability is listed but held back: its project is not trusted, or the plugin's
 * owner has not approved what it runs now. A held capability stays in the session (so it can be
 * seen and approved) and every face that would run it refuses with {@link CapabilityUntrustedError}.
 */
export interface CapabilityHold {
  readonly decidedBy: 'untrusted-project' | 'unapproved-plugin';
  /** One line for people, naming the command that lifts the hold. */
  readonly reason: string;
}

/** One session's holder: called with the records that are on, when the session opens and again by each lookup. */
export type SessionHolder = (records: readonly CapabilityRecord[]) => ReadonlyMap<CapabilityRecord, CapabilityHold>;

/**
 * Decides which of a session's capabilities are held. Asked after the filters, with the records
 * that are on; a record it names stays listed and carries its hold as `held`. What it needs is
 * read once, when the session opens (it may live in a database other servers share), into the
 * session's own synchronous holder, as a {@link CapabilityFilter} does.
 *
 * @example
 * contribute(container, CapabilityHolds, { forSession: () => (records) => new Map(records.filter(isUntrusted).map((r) => [r, hold])) });
 */
export interface CapabilityHolder {
  forSession(scope: SessionScope): SessionHolder | Promise<SessionHolder>;
}
export const CapabilityHolds = token<CapabilityHolder>('kernel.capabilityHolds');

/** Lists found to hold no held record: lists and records are never changed once made, so once is enough. */
const unheldLists = new WeakSet<readonly CapabilityRecord[]>();
/**
 * The last list of more than one record found to hold none. A list that differs from it at a few
 * places (a session after one edited document) holds none when the records at those places hold
 * none: every other place is the very same record. Weak, so it keeps no session's records alive.
 */
let lastUnheld: WeakRef<readonly CapabilityRecord[]> | null = null;
/** More places than this differ from {@link lastUnheld} and every record is looked at. */
const MAX_PLACES_LOOKED_AT = 32;

function holdsNone(records: readonly CapabilityRecord[]): boolean {
  if (unheldLists.has(records)) return true;
  const previous = lastUnheld?.deref();
  const places = previous === undefined ? null : changedPlaces(previous, records, MAX_PLACES_LOOKED_AT);
  const none =
    places === null ? records.every((record) => record.held === undefined) : places.every((place) => (records[place] as CapabilityRecord).held === undefined);
  if (none) {
    unheldLists.add(records);
    if (records.length > 1) lastUnheld = new WeakRef(records);
  }
  return none;
}

/**
 * The records with their holds set (and any earlier hold cleared): the one way a hold is put on a
 * record. With nothing to hold and nothing held, the very same list: what was derived from it
 * (a session's grouping by kind) can be kept by its identity.
 */
export function withHolds(records: readonly CapabilityRecord[], holds: ReadonlyMap<CapabilityRecord, CapabilityHold>): readonly CapabilityRecord[] {
  if (holds.size === 0 && holdsNone(records)) return records;
  const last = lastHeld.get(records);
  if (last !== undefined && sameHolds(last.holds, holds)) return last.result;
  const result = records.map((record) => {
    const hold = holds.get(record);
    if (hold !== undefined) return heldCopy(record, hold);
    if (record.held === undefined) return record;
    const { held: _cleared, ...free } = record;
    return free;
  });
  lastHeld.set(records, { holds, result });
  return result;
}

/**
 * Each record's copy carrying a hold, by the record: the same record held for the same reason gets
 * the same copy, so after one edited document the other held records keep their objects (and what
 * was derived from them downstream can be kept by identity).
 */
const heldCopies = new WeakMap<CapabilityRecord, CapabilityRecord & { readonly held: CapabilityHold }>();

function heldCopy(record: CapabilityRecord, hold: CapabilityHold): CapabilityRecord {
  const kept = heldCopies.get(record);
  if (kept !== undefined && sameHold(kept.held, hold)) return kept;
  const copy = { ...record, held: hold };
  heldCopies.set(record, copy);
  return copy;
}

function sameHold(a: CapabilityHold, b: CapabilityHold): boolean {
  return a.decidedBy === b.decidedBy && a.reason === b.reason;
}

/** The last list with holds put on each list: the same holds on the same list give the same list. */
const lastHeld = new WeakMap<readonly CapabilityRecord[], { readonly holds: ReadonlyMap<CapabilityRecord, CapabilityHold>; readonly result: readonly CapabilityRecord[] }>();

function sameHolds(a: ReadonlyMap<CapabilityRecord, CapabilityHold>, b: ReadonlyMap<CapabilityRecord, CapabilityHold>): boolean {
  if (a.size !== b.size) return false;
  for (const [record, hold] of a) {
    const other = b.get(record);
    if (other === undefined || !sameHold(other, hold)) return false;
  }
  return true;
}

/** Something would run a held capability: refused, whatever the face (CLI, HTTP, MCP, apply, the queue). */
export class CapabilityUntrustedError extends LoadoutError {
  readonly code = 'CAPABILITY_UNTRUSTED';
  readonly category = 'conflict' as const;

  constructor(record: Pick<CapabilityRecord, 'kind' | 'id'>, hold: CapabilityHold) {
    super(`${record.kind}/${record.id} is held (${hold.decidedBy}): ${hold.reason}`);
  }
}

/** Throws {@link CapabilityUntrustedError} for a held record; every path that runs something calls it first. */
export function refuseHeld(record: CapabilityRecord): void {
  if (record.held !== undefined) throw new CapabilityUntrustedError(record, record.held);
}
