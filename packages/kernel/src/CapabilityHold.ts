import type { CapabilityRecord } from './CapabilityKind.js';
import type { SessionScope } from './CapabilityFilter.js';
import { LoadoutError } from '@loadout/files';
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

/**
 * The records with their holds set (and any earlier hold cleared): the one way a hold is put on a
 * record. With nothing to hold and nothing held, the very same list: what was derived from it
 * (a session's grouping by kind) can be kept by its identity.
 */
export function withHolds(
  records: readonly CapabilityRecord[],
  holds: ReadonlyMap<CapabilityRecord, CapabilityHold>,
): readonly CapabilityRecord[] {
  if (holds.size === 0 && records.every((record) => record.held === undefined)) return records;
  return records.map((record) => {
    const hold = holds.get(record);
    if (hold !== undefined) return { ...record, held: hold };
    if (record.held === undefined) return record;
    const { held: _cleared, ...free } = record;
    return free;
  });
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
