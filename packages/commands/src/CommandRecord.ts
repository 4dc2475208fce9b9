import type { CapabilityRecord } from '@loadout/kernel';

/**
 * A slash command (a custom prompt): `commands/<name>.md`, Markdown whose body is the prompt and
 * whose frontmatter (optional) says how it is called (`description`, `argument-hint`, `model` …).
 * It is invoked by its file's name: `/review` for `commands/review.md`.
 */
export interface CommandRecord extends CapabilityRecord {
  readonly kind: 'command';
  /** What the frontmatter's `argument-hint` says to pass (`[pr-number] [priority]`), or null. */
  readonly argumentHint: string | null;
  /** The model its frontmatter names, or null. */
  readonly model: string | null;
}
