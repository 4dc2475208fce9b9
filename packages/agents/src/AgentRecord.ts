import type { CapabilityRecord } from '@loadout/kernel';

/**
 * A subagent definition: `agents/<file>.md`, Markdown with frontmatter (`name`, `description`,
 * `tools`, `model` …) whose body is the subagent's system prompt.
 */
export interface AgentRecord extends CapabilityRecord {
  readonly kind: 'agent';
  /** The tools its frontmatter lists (`tools`, a comma-separated text or a list), as written; empty: the runtime's default. */
  readonly tools: readonly string[];
  /** The model its frontmatter names (`sonnet`, `inherit` …), or null. */
  readonly model: string | null;
}
