import { type CapabilityKind, childPath, type EntryScan, type KindDocument, type KindFolderEntry, readMarkdownCapability } from '@loadout/kernel';
import { checkAgentSkillsRules } from './agentSkillsRules.js';
import type { SkillRecord } from './SkillRecord.js';

/** A skill is `skills/<dir>/SKILL.md` (with its resources beside it) or `skills/<file>.md`, named by its frontmatter. */
export const SKILL_DOCUMENT = { file: 'SKILL.md', recordFromFileAlone: true, idRule: 'name', nameField: 'frontmatter' } as const satisfies KindDocument;

/** The skill kind: reads `skills/<dir>/SKILL.md` folders and `skills/<file>.md` files. */
export const skillKind: CapabilityKind<SkillRecord> = {
  kind: 'skill',
  folder: 'skills',
  sessionKey: 'skills',
  document: SKILL_DOCUMENT,
  readEntry: readSkillEntry,
};

function readSkillEntry(entry: KindFolderEntry): EntryScan<SkillRecord> {
  if (!entry.isDirectory && !entry.name.endsWith('.md')) return { records: [], diagnostics: [] };
  const file = entry.isDirectory ? childPath(entry.path, SKILL_DOCUMENT.file) : entry.path;
  const read = readMarkdownCapability(entry.root.dir, file, SKILL_DOCUMENT);
  if (read === null) return { records: [], diagnostics: [] };
  const { name, description } = read.document.frontmatter;
  // The draft is this read's own: it takes its folder in place rather than being copied.
  const record = read.draft as typeof read.draft & { folder: string | null };
  record.folder = entry.isDirectory ? entry.path : null;
  return {
    records: [record],
    diagnostics: checkAgentSkillsRules(name, description, read.relative),
  };
}
