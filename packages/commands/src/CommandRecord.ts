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
  /**
   * The tools its frontmatter `allowed-tools` lets the agent use without asking while the command
   * runs, as written; empty when none. A command that grants tools is runnable: held until its
   * plugin is approved or its project trusted (docs/decisions/runtimes.md).
   */
  readonly toolGrants: readonly string[];
}
