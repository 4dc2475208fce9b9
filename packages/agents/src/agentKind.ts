import {
  type CapabilityKind,
  type Diagnostic,
  type EntryScan,
  type KindDocument,
  type KindFolderEntry,
  readMarkdownCapability,
} from '@loadout/kernel';
import type { AgentRecord } from './AgentRecord.js';

/**
 * A subagent is one Markdown file, `agents/<file>.md`, named by its frontmatter `name` (the
 * runtimes that read subagents identify them so, whatever the file is called).
 */
export const AGENT_DOCUMENT = { idRule: 'name', nameField: 'frontmatter' } as const satisfies KindDocument;

/** The agent kind: subagent definitions read from `agents/`. Text only: an agent runs nothing by itself. */
export const agentKind: CapabilityKind<AgentRecord> = {
  kind: 'agent',
  folder: 'agents',
  sessionKey: 'agents',
  document: AGENT_DOCUMENT,
  readEntry: readAgentEntry,
};

/** Reads one `agents/<file>.md`; a folder or any other file is not an agent and is passed over. */
export function readAgentEntry(entry: KindFolderEntry): EntryScan<AgentRecord> {
  if (entry.isDirectory || !entry.name.toLowerCase().endsWith('.md')) return { records: [], diagnostics: [] };
  const read = readMarkdownCapability(entry.root.dir, entry.path, AGENT_DOCUMENT);
  if (read === null) return { records: [], diagnostics: [] };
  const { frontmatter } = read.document;
  const record: Omit<AgentRecord, 'kind' | 'level' | 'plugin'> = {
    ...read.draft,
    tools: listField(frontmatter.tools),
    model: typeof frontmatter.model === 'string' && frontmatter.model.trim() !== '' ? frontmatter.model.trim() : null,
  };
  const diagnostics: Diagnostic[] = [];
  // Runtimes that load subagents want both: without a name the file's stem stands in, without a
  // description nothing tells the model when to hand work to it.
  const missing = ['name', 'description'].filter((field) => typeof frontmatter[field] !== 'string' || frontmatter[field].trim() === '');
  if (missing.length > 0) {
    diagnostics.push({
      code: 'AGENT_FIELDS_MISSING',
      severity: 'warning',
      path: read.relative,
      message: `${read.relative}: has no ${missing.join(' and no ')} (runtimes that load subagents need both)`,
    });
  }
  return { records: [record], diagnostics };
}

/** A frontmatter list written either as a YAML list or as one comma-separated text (`Read, Grep`). */
function listField(value: unknown): readonly string[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
  return items.filter((item): item is string => typeof item === 'string' && item.trim() !== '').map((item) => item.trim());
}
