import { describe, expect, it } from 'vitest';
import { recordOf } from '@loadout/kernel/testing';
import type { CapabilityRecord } from '@loadout/kernel';
import { KeptBlocks } from './KeptBlocks.js';

const record = (id: string, description: string) => recordOf(id, { description });

describe('KeptBlocks', () => {
  it('answers the same records again with the block it rendered, and renders again when one record is new', () => {
    const blocks = new KeptBlocks();
    const records = [record('a', 'First'), record('b', 'Second')];
    const first = blocks.render('Kept', records, 1000);
    expect(blocks.render('Kept', [...records], 1000)).toBe(first);
    const edited = blocks.render('Kept', [records[0] as CapabilityRecord, record('b', 'Edited')], 1000);
    expect(edited.text).toContain('- b: Edited');
    expect(blocks.render('Kept', records, 1000).text).toBe(first.text);
    expect(blocks.render('Kept', records, 60).text).not.toBe(first.text);
    expect(blocks.render('Kept', records.slice(0, 1), 1000).text).not.toContain('- b');
  });

  it('keeps the block when only records left out of its text were edited, and renders again for any other change', () => {
    // Room for two lines: a and b are in the text, c and d are named as left out.
    const blocks = new KeptBlocks();
    const records = ['a', 'b', 'c', 'd'].map((id) => record(id, 'Text'));
    const budget = '## Cut\n'.length + 2 * '- a: Text (read /skills/a/SKILL.md)\n'.length;
    const first = blocks.render('Cut', records, budget);
    expect(first.diagnostics).toMatchObject([{ subjects: ['c', 'd'] }]);
    const leftOutEdited = [records[0], records[1], record('c', 'Edited'), records[3]] as CapabilityRecord[];
    expect(blocks.render('Cut', leftOutEdited, budget)).toBe(first);
    // A line in the text edited: new text. A left-out record renamed: a new list of what was left out.
    expect(blocks.render('Cut', [records[0], record('b', 'Tex2'), ...records.slice(2)] as CapabilityRecord[], budget).text).toContain(
      '- b: Tex2',
    );
    const renamed = blocks.render('Cut', [...records.slice(0, 3), record('e', 'Text')] as CapabilityRecord[], budget);
    expect(renamed.diagnostics).toMatchObject([{ subjects: ['c', 'e'] }]);
    // Records out of id order are sorted, and their block is never kept by position.
    const shuffled = [records[3], records[2], records[1], records[0]] as CapabilityRecord[];
    const sorted = blocks.render('Cut', shuffled, budget);
    expect(blocks.render('Cut', [records[3], record('c', 'Edited'), records[1], records[0]] as CapabilityRecord[], budget)).not.toBe(
      sorted,
    );
  });

  it('keeps a block for its own loader only: another keeper renders the same records afresh', () => {
    const records = [record('a', 'First')];
    const one = new KeptBlocks();
    const other = new KeptBlocks();
    const first = one.render('Own', records, 1000);
    expect(one.render('Own', records, 1000)).toBe(first);
    const elsewhere = other.render('Own', records, 1000);
    expect(elsewhere).not.toBe(first);
    expect(elsewhere).toEqual(first);
  });
});
