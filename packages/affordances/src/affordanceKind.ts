import { type CapabilityKind, type CapabilityRecord, type EntryScan, type KindFolderEntry, readMarkdownCapability } from '@loadout/kernel';

/** An affordance: a single `affordances/<file>.md` describing something the agent can reach for. */
export interface AffordanceRecord extends CapabilityRecord {
  readonly kind: 'affordance';
}

/** The affordance kind. */
export const affordanceKind: CapabilityKind<AffordanceRecord> = {
  kind: 'affordance',
  folder: 'affordances',
  sessionKey: 'affordances',
  document: { idRule: 'name', nameField: 'frontmatter' },
  readEntry: readAffordanceEntry,
};

function readAffordanceEntry(entry: KindFolderEntry): EntryScan<AffordanceRecord> {
  if (entry.isDirectory || !entry.name.endsWith('.md')) return { records: [], diagnostics: [] };
  const read = readMarkdownCapability(entry.root.dir, entry.path, affordanceKind.document);
  if (read === null) return { records: [], diagnostics: [] };
  const diagnostics =
    read.draft.description.trim() === ''
      ? [
          {
            code: 'DESCRIPTION_MISSING',
            severity: 'warning' as const,
            path: read.relative,
            message: `${read.relative}: has no description`,
          },
        ]
      : [];
  return { records: [read.draft], diagnostics };
}
