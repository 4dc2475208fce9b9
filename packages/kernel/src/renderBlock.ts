import type { CapabilityRecord } from './CapabilityKind.js';
import type { Diagnostic } from './Diagnostic.js';

/** Every run of white space, line or paragraph separators and control characters (ESC, NEL …). */
const NOT_ONE_LINE = /[\s\p{Cc}]+/gu;

/**
 * `text` on one line: every run of white space or control characters becomes one space, and the
 * ends are trimmed. What a document writes can then never start a line of its own in a block.
 */
export function oneLine(text: string): string {
  return text.replace(NOT_ONE_LINE, ' ').trim();
}

/**
 * Renders the text a session hands an agent for one kind: a heading, then one line per capability
 * (name, description, where to read the rest), ordered by id so the text is stable. Each part of a
 * line is put on one line first ({@link oneLine}), so a name, a description or a path that holds
 * a line break cannot forge a line of the block. Once a line
 * would pass `budget` characters, it and every later one are left out whole and named in a
 * diagnostic, never cut silently.
 */
export function renderCapabilityBlock(title: string, records: readonly CapabilityRecord[], budget: number): RenderedBlock {
  return renderBlock(title, records, budget).block;
}

/** A rendered block: its text, and what was left out of it. */
export interface RenderedBlock {
  readonly text: string;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * {@link renderCapabilityBlock}, also saying how many records, from the first, are in the text when
 * the records came in id order (null when they were sorted first): what a keeper of blocks needs
 * to tell that an edit touched only records left out.
 */
export function renderBlock(
  title: string,
  records: readonly CapabilityRecord[],
  budget: number,
): { block: RenderedBlock; fittedInOrder: number | null } {
  const byId = (a: CapabilityRecord, b: CapabilityRecord): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const inOrder = isSorted(records, byId);
  const sorted = inOrder ? records : [...records].sort(byId);
  const heading = `## ${title}\n`;
  let text = heading;
  const left: string[] = [];
  let fitted = 0;
  for (const record of sorted) {
    const description = oneLine(record.description);
    const line = `- ${oneLine(record.name)}${description === '' ? '' : `: ${description}`} (read ${oneLine(record.path)})\n`;
    if (text.length + line.length > budget) break;
    text += line;
    fitted += 1;
  }
  // In id order until the budget is reached; everything after is named, never dropped silently.
  for (let i = fitted; i < sorted.length; i += 1) left.push((sorted[i] as CapabilityRecord).id);
  const diagnostics: Diagnostic[] =
    left.length === 0
      ? []
      : [
          {
            code: 'BLOCK_BUDGET_EXCEEDED',
            severity: 'warning',
            message: `${title}: ${left.length} of ${sorted.length} did not fit in ${budget} characters and were left out: ${left.slice(0, 20).join(', ')}${left.length > 20 ? ` and ${left.length - 20} more (listed in subjects)` : ''}`,
            subjects: left,
          },
        ];
  return { block: { text: text === heading ? '' : text, diagnostics }, fittedInOrder: inOrder ? fitted : null };
}

function isSorted<T>(items: readonly T[], compare: (a: T, b: T) => number): boolean {
  for (let i = 1; i < items.length; i += 1) if (compare(items[i - 1] as T, items[i] as T) > 0) return false;
  return true;
}
