import type { SkillFileFacts } from './RuntimeAdapter.js';
import { TextMemo } from './TextMemo.js';

/**
 * The key under which two skill names collide in a runtime: the NFKC form, trimmed, inner
 * whitespace collapsed and case folded, so `Café-Skill`, `café-skill` and the NFD spelling of it
 * are one name (an agent would not tell them apart either).
 */
export function skillNameKey(name: string): string {
  return keys.get(name);
}

// Names are short and a plan asks for the same ones in every view it builds, skill after skill in
// the same order: a memo smaller than the plan's skills would empty before any name came back (at
// 10,000 skills every key was computed again in each pass). Bounded all the same, at a size of a
// few megabytes of names.
const SKILL_NAME_KEYS_KEPT = 65_536;
const keys = new TextMemo((name) => name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase(), SKILL_NAME_KEYS_KEPT);

/** The name a runtime lists a skill folder under: its frontmatter `name` when it has one, else the folder's. */
export function listedSkillName(skill: SkillFileFacts): string {
  const name = skill.frontmatter?.name;
  return typeof name === 'string' && name.trim() !== '' ? name.trim().replace(/\s+/g, ' ') : skill.folderName;
}
