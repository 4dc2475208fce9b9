import type { SkillFileFacts } from '../RuntimeAdapter.js';

/** A frontmatter field as a non-empty text, or null. */
export function frontmatterText(skill: SkillFileFacts, field: string): string | null {
  const value = skill.frontmatter?.[field];
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/**
 * The rule most runtimes share: a skill needs a frontmatter block and a non-empty description
 * (the Agent Skills specification's two required facts, `name` falling back to the folder).
 */
export function refuseWithoutDescription(runtime: string, skill: SkillFileFacts): string | null {
  if (skill.frontmatter === null) return `${runtime} does not load a SKILL.md without frontmatter`;
  if (frontmatterText(skill, 'description') === null) return `${runtime} does not load a skill without a description`;
  return null;
}
