import { type CapabilityHold, type CapabilityRecord, withHolds } from '@loadout/kernel';
import { changedPlaces } from './sameItems.js';

/** More places than this differ from the last list found to hold none and every record is looked at. */
const MAX_PLACES_LOOKED_AT = 32;

/**
 * Holds put on a session's records ({@link withHolds}), kept by identity for one loader: lists and
 * records are never changed once made, so a list found to hold nothing is not looked into again,
 * the same holds on the same list give the same list, and a record held for the same reason gets
 * the same copy. After one edited document the other held records keep their objects, and what
 * was derived from them downstream can be kept by identity too. Weak throughout, so nothing here
 * keeps a session's records alive.
 */
export class KeptHolds {
  /** Lists found to hold no held record. */
  private readonly unheldLists = new WeakSet<readonly CapabilityRecord[]>();
  /**
   * The last list of more than one record found to hold none. A list that differs from it at a few
   * places (a session after one edited document) holds none when the records at those places hold
   * none: every other place is the very same record.
   */
  private lastUnheld: WeakRef<readonly CapabilityRecord[]> | null = null;
  /** The last list with holds put on each list. */
  private readonly lastHeld = new WeakMap<
    readonly CapabilityRecord[],
    { readonly holds: ReadonlyMap<CapabilityRecord, CapabilityHold>; readonly result: readonly CapabilityRecord[] }
  >();
  /** Each record's copy carrying a hold, by the record. */
  private readonly heldCopies = new WeakMap<CapabilityRecord, CapabilityRecord & { readonly held: CapabilityHold }>();

  withHolds(records: readonly CapabilityRecord[], holds: ReadonlyMap<CapabilityRecord, CapabilityHold>): readonly CapabilityRecord[] {
    if (holds.size === 0 && this.holdsNone(records)) return records;
    const last = this.lastHeld.get(records);
    if (last !== undefined && sameHolds(last.holds, holds)) return last.result;
    const fresh = withHolds(records, holds);
    // The same record held for the same reason keeps the copy it had.
    const result = fresh.map((record, at) => {
      const hold = record.held;
      const original = records[at] as CapabilityRecord;
      if (hold === undefined || record === original) return record;
      const kept = this.heldCopies.get(original);
      if (kept !== undefined && sameHold(kept.held, hold)) return kept;
      this.heldCopies.set(original, record as CapabilityRecord & { readonly held: CapabilityHold });
      return record;
    });
    this.lastHeld.set(records, { holds, result });
    return result;
  }

  private holdsNone(records: readonly CapabilityRecord[]): boolean {
    if (this.unheldLists.has(records)) return true;
    const previous = this.lastUnheld?.deref();
    const places = previous === undefined ? null : changedPlaces(previous, records, MAX_PLACES_LOOKED_AT);
    const none =
      places === null
        ? records.every((record) => record.held === undefined)
        : places.every((place) => (records[place] as CapabilityRecord).held === undefined);
    if (none) {
      this.unheldLists.add(records);
      if (records.length > 1) this.lastUnheld = new WeakRef(records);
    }
    return none;
  }
}

function sameHold(a: CapabilityHold, b: CapabilityHold): boolean {
  return a.decidedBy === b.decidedBy && a.reason === b.reason;
}

function sameHolds(a: ReadonlyMap<CapabilityRecord, CapabilityHold>, b: ReadonlyMap<CapabilityRecord, CapabilityHold>): boolean {
  if (a.size !== b.size) return false;
  for (const [record, hold] of a) {
    const other = b.get(record);
    if (other === undefined || !sameHold(other, hold)) return false;
  }
  return true;
}
