import path from 'node:path';
import { type CapabilityKind, type EntryScan, type KindFolderEntry, readMarkdownCapability } from '@loadout/kernel';
import { checkAgentSkillsRules } from './agentSkillsRules.js';
import type { SkillRecord } from './SkillRecord.js';

/** The skill kind: reads `skills/<dir>/SKILL.md` folders and `skills/<file>.md` files. */
export const skillKind: CapabilityKind<SkillRecord> = {
  kind: 'skill',
  folder: 'skills',
  sessionKey: 'skills',
  readEntry: readSkillEntry,
};

function readSkillEntry(entry: KindFolderEntry): EntryScan<SkillRecord> {
  if (!entry.isDirectory && !entry.name.endsWith('.md')) return { records: [], diagnostics: [] };
  const file = entry.isDirectory ? path.join(entry.path, 'SKILL.md') : entry.path;
  const read = readMarkdownCapability(entry.root.dir, file);
  if (read === null) return { records: [], diagnostics: [] };
  const { name, description } = read.document.frontmatter;
  return {
    records: [Object.assign(read.draft, { folder: entry.isDirectory ? entry.path : null })],
    diagnostics: checkAgentSkillsRules(name, description, read.relative),
  };
}
