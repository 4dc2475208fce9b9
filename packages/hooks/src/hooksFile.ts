import { type JsonShape, zodShape } from '@loadout/kernel';
import { z } from 'zod';

/** The most handlers one hooks file may hold; each becomes a capability of a session. */
export const MAX_HOOK_HANDLERS = 256;

/** An event name as runtimes write them (`SessionStart`, `PreToolUse`, Cursor's `afterFileEdit`). */
export const HOOK_EVENT = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/**
 * One handler as a runtime reads it: a `command` to run (or a runtime's `prompt` handler), an
 * optional `timeout` in seconds. Other fields (`async`, `statusMessage` …) are kept as written,
 * for they change how it runs. A handler with no `type` (Cursor's shape) is a command.
 */
const handlerFields = {
  type: z.string().min(1).max(64).optional(),
  command: z.string().min(1).max(8192).optional(),
  prompt: z.string().min(1).max(16_384).optional(),
  timeout: z.number().positive().max(86_400).optional(),
};
const NEEDS_WHAT_RUNS = 'a hook needs a "command" (or a "prompt")';
const runsSomething = (handler: { command?: string; prompt?: string }): boolean =>
  handler.command !== undefined || handler.prompt !== undefined;

/** One handler as written: what runs, and every other field a runtime reads, kept. */
export interface HookHandler {
  /** `command` when the file does not say (Cursor writes none). */
  readonly type: string;
  readonly command?: string;
  readonly prompt?: string;
  readonly timeout?: number;
  readonly [field: string]: unknown;
}

/** One group of handlers under an event: Claude Code's `{ matcher, hooks }`, or Cursor's handler with its matcher. */
export interface HookGroup {
  readonly matcher?: string;
  readonly hooks?: readonly Partial<HookHandler>[];
  readonly type?: string;
  readonly command?: string;
  readonly prompt?: string;
  readonly [field: string]: unknown;
}

/** A hooks file as read. */
export interface HooksFile {
  readonly description?: string;
  readonly gates?: unknown;
  readonly hooks: Readonly<Record<string, readonly HookGroup[]>>;
}

/**
 * A hooks file: `{ "description"?, "hooks": { "<Event>": [ <group> ] } }`, where a group is Claude
 * Code's and Codex's `{ "matcher"?, "hooks": [handler] }` or Cursor's handler itself (with its own
 * `matcher`). Every one of its handlers is one hook.
 */
function hooksFileSchema(): z.ZodType<HooksFile> {
  const handler = z.looseObject(handlerFields).refine(runsSomething, NEEDS_WHAT_RUNS);
  // One shape for both kinds of group, so a bad entry is reported where it is, not as "no union matched".
  const group = z
    .looseObject({ ...handlerFields, matcher: z.string().max(1024).optional(), hooks: z.array(handler).max(MAX_HOOK_HANDLERS).optional() })
    .refine((entry) => entry.hooks !== undefined || runsSomething(entry), NEEDS_WHAT_RUNS);
  return z
    .object({
      description: z.string().max(1024).optional(),
      // Checked by the kernel's declaredGates, the one reader of gate declarations.
      gates: z.unknown().optional(),
      hooks: z.record(z.string().regex(HOOK_EVENT, 'an event name is 1-64 letters, digits or "_"'), z.array(group).max(MAX_HOOK_HANDLERS)),
    })
    .refine((file) => handlersIn(file).length <= MAX_HOOK_HANDLERS, `a hooks file may hold at most ${MAX_HOOK_HANDLERS} hooks`);
}

/** One handler of a hooks file with the event and matcher it is under. */
export interface PlacedHandler {
  readonly event: string;
  readonly matcher: string | null;
  readonly handler: HookHandler;
}

/** Every handler of a hooks file, in the order written: events in key order, groups, then handlers. */
export function handlersIn(file: HooksFile): PlacedHandler[] {
  const placed: PlacedHandler[] = [];
  for (const [event, groups] of Object.entries(file.hooks)) {
    for (const group of groups) {
      const matcher = group.matcher === undefined || group.matcher === '' ? null : group.matcher;
      if (group.hooks !== undefined) {
        for (const handler of group.hooks) placed.push({ event, matcher, handler: { ...handler, type: handler.type ?? 'command' } });
      } else {
        const { matcher: _matcher, hooks: _hooks, ...handler } = group;
        placed.push({ event, matcher, handler: { ...handler, type: handler.type ?? 'command' } });
      }
    }
  }
  return placed;
}

let shape: JsonShape<HooksFile> | undefined;

/** How a hooks file is checked (the schema is built on first use: most sessions read no hooks). */
export function hooksFileShape(value: unknown): ReturnType<JsonShape<HooksFile>> {
  shape ??= zodShape(hooksFileSchema());
  return shape(value);
}
