import type { JsonShape } from './readJsonCapability.js';

/** The part of a zod schema {@link zodShape} needs; keeps zod out of the kernel's dependencies. */
interface SafeParser<T> {
  safeParse(value: unknown):
    | { success: true; data: T }
    | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/** Adapts a zod schema to a {@link JsonShape}, turning the first issue into a readable reason. */
export function zodShape<T>(schema: SafeParser<T>): JsonShape<T> {
  return (value) => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return { ok: true, value: parsed.data };
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.map(String).join('.')}: `;
    return { ok: false, reason: `${where}${issue?.message ?? 'invalid'}` };
  };
}
