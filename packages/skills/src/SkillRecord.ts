import type { CapabilityRecord } from '@loadout/kernel';

/** A skill: `skills/<dir>/SKILL.md` with sibling resources, or a single `skills/<file>.md`. */
export interface SkillRecord extends CapabilityRecord {
  readonly kind: 'skill';
  /** The skill's folder for a `SKILL.md` skill (its resources travel with it); null for a single file. */
  readonly folder: string | null;
  /** The tools its frontmatter grants (`allowed-tools`, `tools`), as written; empty when none. */
  readonly toolGrants: readonly string[];
  /**
   * Whether it may run something (trust holds it like a task): it grants tools, or its folder holds
   * a script. See `skillRunnable.ts`.
   */
  readonly mayRun: boolean;
}
