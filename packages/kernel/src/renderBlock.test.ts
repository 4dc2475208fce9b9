import { describe, expect, it } from 'vitest';
import type { CapabilityRecord } from './CapabilityKind.js';
import { renderCapabilityBlock } from './renderBlock.js';

const record = (id: string, description: string): CapabilityRecord => ({
  kind: 'skill',
  id,
  name: id,
  description,
  level: 'global',
  plugin: null,
  path: `/skills/${id}/SKILL.md`,
  gates: {},
});

describe('renderCapabilityBlock', () => {
  it('renders in id order, one line each, and names what does not fit', () => {
    const rendered = renderCapabilityBlock('Things', [record('b', 'Second\nline'), record('a', 'First')], 80);
    expect(rendered.text).toBe('## Things\n- a: First (read /skills/a/SKILL.md)\n');
    expect(rendered.diagnostics).toMatchObject([{ code: 'BLOCK_BUDGET_EXCEEDED', subjects: ['b'] }]);
  });

  it('answers the same records again with the block it rendered, and renders again when one record is new', () => {
    const records = [record('a', 'First'), record('b', 'Second')];
    const first = renderCapabilityBlock('Kept', records, 1000);
    expect(renderCapabilityBlock('Kept', [...records], 1000)).toBe(first);
    const edited = renderCapabilityBlock('Kept', [records[0] as CapabilityRecord, record('b', 'Edited')], 1000);
    expect(edited.text).toContain('- b: Edited');
    expect(renderCapabilityBlock('Kept', records, 1000).text).toBe(first.text);
    expect(renderCapabilityBlock('Kept', records, 60).text).not.toBe(first.text);
    expect(renderCapabilityBlock('Kept', records.slice(0, 1), 1000).text).not.toContain('- b');
  });

  it('keeps the block when only records left out of its text were edited, and renders again for any other change', () => {
    // Room for two lines: a and b are in the text, c and d are named as left out.
    const records = ['a', 'b', 'c', 'd'].map((id) => record(id, 'Text'));
    const budget = '## Cut\n'.length + 2 * '- a: Text (read /skills/a/SKILL.md)\n'.length;
    const first = renderCapabilityBlock('Cut', records, budget);
    expect(first.diagnostics).toMatchObject([{ subjects: ['c', 'd'] }]);
    const leftOutEdited = [records[0], records[1], record('c', 'Edited'), records[3]] as CapabilityRecord[];
    expect(renderCapabilityBlock('Cut', leftOutEdited, budget)).toBe(first);
    // A line in the text edited: new text. A left-out record renamed: a new list of what was left out.
    expect(renderCapabilityBlock('Cut', [records[0], record('b', 'Tex2'), ...records.slice(2)] as CapabilityRecord[], budget).text).toContain('- b: Tex2');
    const renamed = renderCapabilityBlock('Cut', [...records.slice(0, 3), record('e', 'Text')] as CapabilityRecord[], budget);
    expect(renamed.diagnostics).toMatchObject([{ subjects: ['c', 'e'] }]);
    // Records out of id order are sorted, and their block is never kept by position.
    const shuffled = [records[3], records[2], records[1], records[0]] as CapabilityRecord[];
    const sorted = renderCapabilityBlock('Cut', shuffled, budget);
    expect(renderCapabilityBlock('Cut', [records[3], record('c', 'Edited'), records[1], records[0]] as CapabilityRecord[], budget)).not.toBe(sorted);
  });
});
