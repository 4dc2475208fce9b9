import { describe, expect, it } from 'vitest';
import { recordOf } from './testing/index.js';
import { renderCapabilityBlock } from './renderBlock.js';

const record = (id: string, description: string) => recordOf(id, { description });

describe('renderCapabilityBlock', () => {
  it('renders in id order, one line each, and names what does not fit', () => {
    const rendered = renderCapabilityBlock('Things', [record('b', 'Second\nline'), record('a', 'First')], 80);
    expect(rendered.text).toBe('## Things\n- a: First (read /skills/a/SKILL.md)\n');
    expect(rendered.diagnostics).toMatchObject([{ code: 'BLOCK_BUDGET_EXCEEDED', subjects: ['b'] }]);
  });
});
