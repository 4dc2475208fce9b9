import type { z } from 'zod';
import { formatValidationError } from './formatValidationError.js';
import type { JsonShape } from './readJsonCapability.js';

/** Adapts a zod schema to a {@link JsonShape}; a mismatch's reason is {@link formatValidationError}'s line. */
export function zodShape<T>(schema: z.ZodType<T>): JsonShape<T> {
  return (value) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, reason: formatValidationError(parsed.error) };
  };
}
