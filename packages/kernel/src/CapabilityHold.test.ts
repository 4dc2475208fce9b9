import { describe, expect, it } from 'vitest';
import { type CapabilityHold, refuseHeld, withHolds } from './CapabilityHold.js';
import type { CapabilityRecord } from './CapabilityKind.js';
import { recordOf } from './testing/index.js';

const hold: CapabilityHold = { decidedBy: 'untrusted-project', reason: 'run loadout trust first' };

describe('withHolds', () => {
  it('hands the very list back when nothing is held and nothing is to be', () => {
    const records = [recordOf('a'), recordOf('b')];
    expect(withHolds(records, new Map())).toBe(records);
  });

  it('puts a hold on a copy of each record named, clears an earlier one, and leaves the rest as they are', () => {
    const records = [recordOf('a'), recordOf('b', { held: hold }), recordOf('c')];
    const held = withHolds(records, new Map([[records[0] as CapabilityRecord, hold]]));
    expect(held[0]).toEqual({ ...records[0], held: hold });
    expect(records[0]?.held).toBeUndefined();
    expect(held[1]?.held).toBeUndefined();
    expect(held[2]).toBe(records[2]);
    expect(() => refuseHeld(held[0] as CapabilityRecord)).toThrow(expect.objectContaining({ code: 'CAPABILITY_UNTRUSTED' }));
  });
});
