import { type CapabilityKind, type EntryScan, type KindDocument, type KindFolderEntry, readMarkdownCapability } from '@loadout/kernel';
import { childPath } from '@loadout/files';
import { checkAgentSkillsRules } from './agentSkillsRules.js';
import type { SkillRecord } from './SkillRecord.js';
import { skillMayRun, skillRunnableParts, toolGrantsOf } from './skillRunnable.js';

/** A skill is `skills/<dir>/SKILL.md` (with its resources beside it) or `skills/<file>.md`, named by its frontmatter. */
export const SKILL_DOCUMENT = {
  file: 'SKILL.md',
  recordFromFileAlone: true,
  idRule: 'name',
  nameField: 'frontmatter',
} as const satisfies KindDocument;

/** The skill kind: reads `skills/<dir>/SKILL.md` folders and `skills/<file>.md` files. */
export const skillKind: CapabilityKind<SkillRecord> = {
  kind: 'skill',
  folder: 'skills',
  sessionKey: 'skills',
  document: SKILL_DOCUMENT,
  readEntry: readSkillEntry,
  runnable: skillRunnableParts,
  mayRun: (record) => record.mayRun,
};

/** Reads one skill entry (a folder with its `SKILL.md`, or a `.md` file); the only function that turns one into a record. */
export function readSkillEntry(entry: KindFolderEntry): EntryScan<SkillRecord> {
  if (!entry.isDirectory && !entry.name.endsWith('.md')) return { records: [], diagnostics: [] };
  const file = entry.isDirectory ? childPath(entry.path, SKILL_DOCUMENT.file) : entry.path;
  // The whole SKILL.md is kept when the open was asked to: a runtime plan reads it next.
  const read = readMarkdownCapability(entry.root.dir, file, SKILL_DOCUMENT, entry.documents);
  if (read === null) return { records: [], diagnostics: [] };
  const { draft } = read;
  const folder = entry.isDirectory ? entry.path : null;
  const toolGrants = toolGrantsOf(read.document.frontmatter);
  // The whole record at once, in the order its fields always had (the draft's, the folder, then
  // what the scan stamps from the root: it writes the same values again): one object of its
  // final shape, where growing the draft field by field cost each of 10,000 records two more.
  const record: SkillRecord = {
    id: draft.id,
    name: draft.name,
    description: draft.description,
    path: draft.path,
    gates: draft.gates,
    folder,
    kind: 'skill',
    level: entry.root.level,
    plugin: entry.root.plugin,
    toolGrants,
    mayRun: skillMayRun(entry.root, folder, file, toolGrants),
  };
  return {
    records: [record],
    diagnostics: checkAgentSkillsRules(read.document.frontmatter, read.relative, entry.root.plugin),
  };
}
