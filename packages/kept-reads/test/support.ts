import path from 'node:path';
import { type CapabilityKind, readMarkdownCapability, ScanSource } from '@loadout/kernel';
import { freezeReads } from '@loadout/kernel/testing';
import type { DependencyContainer } from 'tsyringe';
import { KeptScanSource } from '../src/KeptScanSource.js';
import type { FolderScanCacheOptions } from '../src/FolderScanCache.js';

/** What the kept-reads tests share: a kind of entry folders counting its reads, and a kept source put on a kernel. */

/**
 * A kind of folder entries with a document inside (`cards/<dir>/CARD.md`), counting its reads;
 * with `fileAlone` it declares that a record comes from the document alone, so an unwatched entry
 * is checked by the document alone (its stat, or a descriptor held on it).
 */
export function cardKind(reads: { count: number }, fileAlone = false): CapabilityKind {
  const document = { file: 'CARD.md', recordFromFileAlone: fileAlone, idRule: 'name', nameField: 'frontmatter' } as const;
  return {
    kind: 'card',
    folder: 'cards',
    sessionKey: 'cards',
    document,
    readEntry: (entry) => {
      reads.count += 1;
      if (!entry.isDirectory) return { records: [], diagnostics: [] };
      const read = readMarkdownCapability(entry.root.dir, path.join(entry.path, document.file), document);
      return { records: read === null ? [] : [read.draft], diagnostics: [] };
    },
  };
}

export const card = (name: string, version: number): string => `---\nname: ${name}\ndescription: version ${version}\n---\n`;

/**
 * Gives `container`'s loader a source that keeps its reads with `options`, handing out only frozen
 * things as in every test kernel ({@link freezeReads}); its watch cache, to look into.
 */
export function keepReads(container: DependencyContainer, options: FolderScanCacheOptions = {}): KeptScanSource['cache'] {
  const source = new KeptScanSource(options);
  container.register(ScanSource, { useValue: source });
  freezeReads(container);
  return source.cache;
}
