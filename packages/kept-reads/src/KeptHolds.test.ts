import { beforeEach, describe, expect, it } from 'vitest';
import type { CapabilityHold, CapabilityRecord } from '@loadout/kernel';
import { recordOf } from '@loadout/kernel/testing';
import { KeptHolds } from './KeptHolds.js';

const record = (id: string, held?: CapabilityHold): CapabilityRecord => recordOf(id, held === undefined ? {} : { held });
const stale: CapabilityHold = { decidedBy: 'unapproved-plugin', reason: 'approved no longer' };
const none = new Map<CapabilityRecord, CapabilityHold>();
/** Each test's own keeper: what one loader keeps. */
let kept = new KeptHolds();
beforeEach(() => {
  kept = new KeptHolds();
});
const withHolds = (records: readonly CapabilityRecord[], holds: ReadonlyMap<CapabilityRecord, CapabilityHold>) =>
  kept.withHolds(records, holds);
const list = (count: number) => Array.from({ length: count }, (_, i) => record(`s${i}`));

describe('KeptHolds.withHolds with nothing to hold', () => {
  it('hands the very same list when no record carries a hold', () => {
    const records = list(50);
    expect(withHolds(records, none)).toBe(records);
    expect(withHolds(records, none)).toBe(records);
  });

  it('clears an earlier hold from a record put in place of another in a list found free before', () => {
    const before = list(50);
    expect(withHolds(before, none)).toBe(before);
    // The same list but for two places, one of them a record still carrying a hold.
    const after = before.slice();
    after[7] = record('s7');
    after[31] = record('s31', stale);
    const freed = withHolds(after, none);
    expect(freed).not.toBe(after);
    expect(freed[31]).toEqual(record('s31'));
    expect(freed[31]?.held).toBeUndefined();
    expect(freed[7]).toBe(after[7]);
    expect(freed[0]).toBe(before[0]);
  });

  it('looks at every record when too many places changed since the list found free', () => {
    const before = list(100);
    expect(withHolds(before, none)).toBe(before);
    const after = before.map((each, i) => (i === 99 ? record('s99', stale) : record(each.id)));
    const freed = withHolds(after, none);
    expect(freed[99]?.held).toBeUndefined();
    expect(freed.slice(0, 99)).toEqual(after.slice(0, 99));
  });

  it('looks at a list of another length whole', () => {
    const before = list(20);
    expect(withHolds(before, none)).toBe(before);
    const after = [...before, record('extra', stale)];
    expect(withHolds(after, none).at(-1)?.held).toBeUndefined();
  });
});

describe('KeptHolds.withHolds with holds', () => {
  it('puts a hold on the records named and hands the same held copy for the same hold', () => {
    const records = list(5);
    const holds = new Map([[records[2] as CapabilityRecord, stale]]);
    const held = withHolds(records, holds);
    expect(held[2]?.held).toEqual(stale);
    expect(held[1]).toBe(records[1]);
    const again = withHolds(records.slice(), new Map(holds));
    expect(again[2]).toBe(held[2]);
  });
});
