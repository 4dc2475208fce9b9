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
});
