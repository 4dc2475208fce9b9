import { DocumentRefusedError } from '@loadout/files';

const GATE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;
const NO_GATES: Readonly<Record<string, boolean>> = Object.freeze({});

/**
 * Reads the `gates` field a document declares: a mapping of gate name to its default (`true`/`false`,
 * `on`/`off`). Absent means no gates.
 */
export function declaredGates(value: unknown, file: string): Readonly<Record<string, boolean>> {
  if (value === undefined || value === null) return NO_GATES;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new DocumentRefusedError('GATES_MALFORMED', `${file}: gates must map gate names to on/off defaults`);
  }
  const gates: Record<string, boolean> = {};
  for (const [name, raw] of Object.entries(value)) {
    if (!GATE_NAME.test(name)) {
      throw new DocumentRefusedError('GATES_MALFORMED', `${file}: gate name "${name.slice(0, 64)}" is not valid`);
    }
    const parsed = parseSwitch(raw);
    if (parsed === null) {
      throw new DocumentRefusedError('GATES_MALFORMED', `${file}: gate "${name}" must default to on or off`);
    }
    gates[name] = parsed;
  }
  return gates;
}

/** `true`/`false`/`on`/`off` (any case) as a boolean; anything else is null. */
export function parseSwitch(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return null;
  const lowered = value.toLowerCase();
  if (lowered === 'on' || lowered === 'true') return true;
  if (lowered === 'off' || lowered === 'false') return false;
  return null;
}
