import { zodShape } from '@loadout/kernel';
import { z } from 'zod';
import { DesiredStateInvalidError } from './StateErrors.js';

// The schemas are built on first use (z.lazy): a session loads this module with the state
// service, and only a write parses with them.

/**
 * Gate name → asked value, checked as a plain object of at most 256 names of 1–64 characters. Kept
 * as the caller's own object rather than rebuilt: a rebuilt record would silently drop a key such
 * as `__proto__`, and an undeclared gate must be refused by name, never ignored.
 */
const gateRequests = () =>
  z
    .custom<Record<string, unknown>>(
      (value) => value !== null && typeof value === 'object' && !Array.isArray(value),
      'expected an object of gate names',
    )
    .superRefine((value, context) => {
      const names = Object.keys(value);
      if (names.length > 256) context.addIssue({ code: 'custom', message: 'at most 256 gates' });
      for (const name of names) {
        if (name.length === 0 || name.length > 64)
          context.addIssue({ code: 'custom', path: [name], message: 'a gate name has 1-64 characters' });
      }
    });

/**
 * One desired state as a caller sends it (the CLI, the RPC `capability.set`). The schema checks
 * the shape only; the values of `enabled` and of each gate are checked by the writer, so a value
 * that is not on/off is reported in the result's `errors` together with every other refusal, and
 * nothing is written. On/off values: `true`/`false` or `"on"`/`"off"`/`"true"`/`"false"`.
 *
 * @example
 * { "kind": "skill", "id": "pdf", "enabled": true, "gates": { "ocr": "off" } }
 */
export const DesiredCapabilitySchema = z.lazy(() =>
  z
    .object({
      kind: z.string().min(1).max(64),
      id: z.string().min(1).max(256),
      enabled: z.unknown().optional(),
      gates: gateRequests().optional(),
    })
    .strict(),
);
export type DesiredCapability = z.infer<typeof DesiredCapabilitySchema>;

/** A batch of desired states, written together or not at all. */
export const DesiredCapabilitiesSchema = z.lazy(() => z.array(DesiredCapabilitySchema).max(1000));

/** Where a write goes and which sessions a read describes: a project folder, or none for global. */
export const StateScopeSchema = z.lazy(() =>
  z
    .object({
      project: z.string().min(1).nullable().optional(),
    })
    .strict(),
);
export type StateScope = z.infer<typeof StateScopeSchema>;

/** Checks a request body against {@link DesiredCapabilitiesSchema}; a refusal names what is wrong and where. */
export function parseDesiredCapabilities(input: unknown): DesiredCapability[] {
  return parseWith(DesiredCapabilitiesSchema, input, 'desired states');
}

/** Checks a scope against {@link StateScopeSchema}. */
export function parseStateScope(input: unknown): StateScope {
  return parseWith(StateScopeSchema, input ?? {}, 'scope');
}

function parseWith<T>(schema: z.ZodType<T>, input: unknown, what: string): T {
  const checked = zodShape(schema)(input);
  if (!checked.ok) throw new DesiredStateInvalidError(`${what}: ${checked.reason}`);
  return checked.value;
}
