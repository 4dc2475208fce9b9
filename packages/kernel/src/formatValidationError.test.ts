import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatValidationError } from './formatValidationError.js';
import { zodShape } from './zodShape.js';

const Catalogue = z.strictObject({
  name: z.string().min(1),
  items: z.array(z.strictObject({ id: z.string(), severity: z.enum(['info', 'error']) })),
});

function errorOf(value: unknown): z.ZodError {
  const parsed = Catalogue.safeParse(value);
  if (parsed.success) throw new Error('expected a validation error');
  return parsed.error;
}

describe('formatValidationError', () => {
  it('writes one issue the way z.prettifyError does, on one line', () => {
    const error = errorOf({ name: 'n', items: [{ id: 'a', severity: 'loud' }] });
    expect(z.prettifyError(error)).toBe('✖ Invalid option: expected one of "info"|"error"\n  → at items[0].severity');
    expect(formatValidationError(error)).toBe('✖ Invalid option: expected one of "info"|"error" → at items[0].severity');
  });

  it('names an issue of the whole value without a path', () => {
    expect(formatValidationError(errorOf('text'))).toBe('✖ Invalid input: expected object, received string');
  });

  it('lists several issues shortest path first', () => {
    const message = formatValidationError(errorOf({ name: '', items: [{ id: 1, severity: 'info' }], extra: true }));
    expect(message).toBe(
      '✖ Unrecognized key: "extra" ✖ Too small: expected string to have >=1 characters → at name ✖ Invalid input: expected string, received number → at items[0].id',
    );
    expect(message).not.toContain('\n');
  });

  it('spells out three issues and counts the rest', () => {
    const items = Array.from({ length: 5 }, () => ({ id: 'x', severity: 'loud' }));
    const message = formatValidationError(errorOf({ name: 'n', items }));
    expect(message.match(/✖/g)).toHaveLength(3);
    expect(message).toMatch(/→ at items\[2\]\.severity \(and 2 more\)$/);
  });
});

describe('zodShape', () => {
  it('returns the parsed value, or the formatted reason', () => {
    const shape = zodShape(Catalogue);
    expect(shape({ name: 'n', items: [] })).toEqual({ ok: true, value: { name: 'n', items: [] } });
    expect(shape({ items: [] })).toEqual({ ok: false, reason: '✖ Invalid input: expected string, received undefined → at name' });
  });
});
