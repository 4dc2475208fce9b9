import type { CapabilityRecord } from './CapabilityKind.js';
import { collisionKey } from './capabilityId.js';
import type { Diagnostic } from './Diagnostic.js';

/** What {@link shadowRecords} decided for the records of one kind. */
export interface Shadowing<R extends CapabilityRecord = CapabilityRecord> {
  /** The first record of each id, ordered by collision key (the order every list of a session uses). */
  readonly winners: R[];
  /** Every record set aside, mapped to the record that wins over it. */
  readonly shadowedBy: ReadonlyMap<R, R>;
  /** One `SHADOWED` diagnostic per record set aside, so nothing disappears silently. */
  readonly diagnostics: Diagnostic[];
}

export interface ShadowOptions<R extends CapabilityRecord> {
  /**
   * Whether a session reads the record's root. A record of a root it does not read (a disabled
   * plugin's, in a listing of every installed root) never wins over one it reads; among
   * themselves such records keep root order. Default: every root is read.
   */
  readonly isRead?: (record: R) => boolean;
  /**
   * Whether different plugins' copies of one id stand side by side (each named `plugin:id`) when
   * no owner's or project's copy holds the id: what a session shows. Off, the first plugin's copy
   * sets the others aside, as a store keyed by id alone (capability state) needs. Default: off.
   */
  readonly pluginsSideBySide?: boolean;
}

/**
 * The one shadowing rule: among records of one kind given in root order (project, owner, plugins
 * in install order), the first root that holds an id wins; ids compare case-insensitively
 * ({@link collisionKey}); every record set aside is reported. Different plugins' copies of one id
 * are all kept when no owner's or project's copy holds it: a plugin's capability is named by its
 * plugin too (`discord:access`, {@link qualifiedId}), and a bare id finds the first of them.
 *
 * Works by a stable sort on the collision key, so the winners come out ordered by id and each
 * duplicate sits next to the record that shadows it.
 */
export function shadowRecords<R extends CapabilityRecord>(records: readonly R[], options: ShadowOptions<R> = {}): Shadowing<R> {
  const { isRead, pluginsSideBySide = false } = options;
  const ordered =
    isRead === undefined ? records : [...records.filter((record) => isRead(record)), ...records.filter((record) => !isRead(record))];
  const keys = ordered.map((record) => collisionKey(record.id));
  // Keys strictly ascending (the common case: each root lists its entries in name order, and
  // plugins seldom share an id) hold no duplicate: every record wins, in this order.
  if (keysAscending(keys)) return { winners: ordered.slice(), shadowedBy: new Map(), diagnostics: [] };
  const order = ordered
    .map((_record, index) => index)
    .sort((a, b) => {
      const left = keys[a] as string;
      const right = keys[b] as string;
      return left < right ? -1 : left > right ? 1 : a - b;
    });
  const winners: R[] = [];
  const shadowedBy = new Map<R, R>();
  const diagnostics: Diagnostic[] = [];
  // The records that hold the current key so far: the first, and other plugins' copies beside it.
  let holders: R[] = [];
  let holdersKey: string | null = null;
  const read = (record: R): boolean => isRead === undefined || isRead(record);
  for (const index of order) {
    const record = ordered[index] as R;
    const key = keys[index] as string;
    if (key !== holdersKey) {
      holdersKey = key;
      holders = [record];
      winners.push(record);
      continue;
    }
    const kept = pluginsSideBySide ? shadowerOf(record, holders, read) : holders[0];
    if (kept === undefined) {
      holders.push(record);
      winners.push(record);
      continue;
    }
    shadowedBy.set(record, kept);
    diagnostics.push({
      code: 'SHADOWED',
      severity: 'info',
      path: record.path,
      message: `${record.kind} "${record.id}" from ${sourceName(record)} is shadowed by the one from ${sourceName(kept)}`,
    });
  }
  return { winners, shadowedBy, diagnostics };
}

/**
 * The record that sets `record` aside, or undefined when it stands beside the holders of its id.
 * The owner's and the project's copy holds a name for everyone (a plugin cannot take over a name its
 * owner uses); plugins' copies of one id stand side by side, each under its qualified id
 * (`discord:access`, `telegram:access`), unless one plugin ships the id twice, or one is read and
 * the other not.
 */
function shadowerOf<R extends CapabilityRecord>(record: R, holders: readonly R[], read: (record: R) => boolean): R | undefined {
  const first = holders[0] as R;
  if (record.plugin === null || first.plugin === null) return first;
  return holders.find((holder) => holder.plugin === record.plugin || read(holder) !== read(record));
}

/** Whether the keys are already in order with no duplicate out of place (a common case worth no sort). */
function keysAscending(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i += 1) if ((keys[i - 1] as string) >= (keys[i] as string)) return false;
  return true;
}

function sourceName(record: CapabilityRecord): string {
  if (record.plugin !== null) return `plugin ${record.plugin}`;
  return record.level === 'project' ? 'the project' : "the owner's capabilities";
}
