import type { CapabilityRecord } from './CapabilityKind.js';
import type { Diagnostic } from './Diagnostic.js';

/**
 * Renders the text a session hands an agent for one kind: a heading, then one line per capability
 * (name, description, where to read the rest), ordered by id so the text is stable. Lines that do
 * not fit `budget` characters are left out whole and named in a diagnostic, never cut silently.
 */
export function renderCapabilityBlock(
  title: string,
  records: readonly CapabilityRecord[],
  budget: number,
): { text: string; diagnostics: Diagnostic[] } {
  if (records.length === 0) return { text: '', diagnostics: [] };
  const sorted = [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const heading = `## ${title}\n`;
  let text = heading;
  const left: string[] = [];
  for (const record of sorted) {
    const description = record.description.replace(/\s+/g, ' ').trim();
    const line = `- ${record.name}${description === '' ? '' : `: ${description}`} (read ${record.path})\n`;
    if (text.length + line.length > budget) {
      left.push(record.id);
      continue;
    }
    text += line;
  }
  const diagnostics: Diagnostic[] =
    left.length === 0
      ? []
      : [
          {
            code: 'BLOCK_BUDGET_EXCEEDED',
            severity: 'warning',
            message: `${title}: ${left.length} of ${sorted.length} did not fit in ${budget} characters and were left out: ${left.join(', ')}`,
          },
        ];
  return { text: text === heading ? '' : text, diagnostics };
}
