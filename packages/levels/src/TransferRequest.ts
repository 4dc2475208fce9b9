import { formatValidationError } from '@loadout/kernel';
import { z } from 'zod';
import { CapabilityInvalidError } from './LevelErrors.js';

/** The kinds an owner can move between levels: documents of their own (a hook runs where its file is, and stays there). */
export const TRANSFERABLE_KINDS = ['skill', 'server', 'agent', 'command'] as const;
export type TransferableKind = (typeof TRANSFERABLE_KINDS)[number];

// The schemas are built on first use (z.lazy): a session loads this module with the mover, and
// only a move parses with them.

const projectPath = () =>
  z
    .string()
    .min(1)
    .max(4096)
    .refine((value) => !value.includes('\0'), 'must not hold NUL');

/**
 * One end of a move. `projectPath` names the project of a project end; on a global end it is
 * optional and only says in which project's view the source's state was shown, so the value
 * that project saw is the one carried.
 */
export const LevelEndSchema = z.lazy(() =>
  z
    .strictObject({
      level: z.enum(['global', 'project']),
      projectPath: projectPath().optional(),
    })
    .refine((end) => end.level === 'global' || end.projectPath !== undefined, {
      message: 'a project end needs projectPath',
      path: ['projectPath'],
    }),
);
export type LevelEnd = z.infer<typeof LevelEndSchema>;

/** `transfer({ kind, id, from, to })`; the RPC methods fix `kind` and take the rest. */
export const TransferRequestSchema = z.lazy(() =>
  z.strictObject({
    kind: z.enum(TRANSFERABLE_KINDS),
    id: z.string().min(1).max(256),
    from: LevelEndSchema,
    to: LevelEndSchema,
  }),
);
export type TransferRequest = z.infer<typeof TransferRequestSchema>;

/** Checks a request at the boundary; any mismatch is `CAPABILITY_INVALID` naming what is wrong and where. */
export function parseTransferRequest(input: unknown): TransferRequest {
  const parsed = TransferRequestSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new CapabilityInvalidError(`transfer request: ${formatValidationError(parsed.error)}`);
}

/**
 * Reads an end as the command line writes it: `global`, or `project:<dir>` with a non-empty
 * folder. `project` alone is the missing-path case and is refused the same way the RPC refuses it.
 */
export function parseLevelEndArgument(text: string): LevelEnd {
  if (text === 'global') return { level: 'global' };
  if (text === 'project' || text === 'project:') {
    throw new CapabilityInvalidError(`"${text}": a project end needs a folder, e.g. project:./my-app`);
  }
  if (text.startsWith('project:')) return parseEnd({ level: 'project', projectPath: text.slice('project:'.length) });
  throw new CapabilityInvalidError(`"${text.slice(0, 200)}" is not an end: use global or project:<dir>`);
}

function parseEnd(input: unknown): LevelEnd {
  const parsed = LevelEndSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new CapabilityInvalidError(`end: ${formatValidationError(parsed.error)}`);
}
