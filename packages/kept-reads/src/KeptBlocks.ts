import { type CapabilityRecord, type RenderedBlock, renderBlock } from '@loadout/kernel';
import { sameItems } from './sameItems.js';

interface KeptBlock {
  readonly budget: number;
  readonly records: readonly CapabilityRecord[];
  readonly rendered: RenderedBlock;
  /** How many records, from the first, are in the text, when the records came in id order; null when they were sorted first. */
  readonly fittedInOrder: number | null;
}

/**
 * The last block rendered under each title for one loader, with the records it was rendered
 * from. Records are never changed once made (an edit makes a new record), so the same records in
 * the same order render the same text: a warm session hands the very records of the last one, and
 * is answered by comparing references instead of sorting and rendering 10,000 lines again.
 */
export class KeptBlocks {
  private readonly last = new Map<string, KeptBlock>();

  render(title: string, records: readonly CapabilityRecord[], budget: number): RenderedBlock {
    if (records.length === 0) return { text: '', diagnostics: [] };
    const last = this.last.get(title);
    if (last !== undefined && last.budget === budget && (sameItems(last.records, records) || onlyLeftOutChanged(last, records))) {
      if (last.records !== records) this.last.set(title, { ...last, records: records.slice() });
      return last.rendered;
    }
    const rendered = renderBlock(title, records, budget);
    this.last.set(title, { budget, records: records.slice(), rendered: rendered.block, fittedInOrder: rendered.fittedInOrder });
    return rendered.block;
  }
}

/**
 * Whether `records` would render the very block `last` did: the same ids in the same order, in id
 * order already, and every record that is not the same object among those left out of the text
 * (their ids are all the block says of them). An edit of one document of 10,000 usually is.
 */
function onlyLeftOutChanged(last: KeptBlock, records: readonly CapabilityRecord[]): boolean {
  if (last.fittedInOrder === null || last.records.length !== records.length) return false;
  for (let i = 0; i < records.length; i += 1) {
    const before = last.records[i] as CapabilityRecord;
    const after = records[i] as CapabilityRecord;
    if (before !== after && (i < last.fittedInOrder || before.id !== after.id)) return false;
  }
  return true;
}
