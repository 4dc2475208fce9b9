import type { CapabilityRecord, DraftRecord, KindDocument } from './CapabilityKind.js';
import { capabilityId, displayNameOf } from './capabilityId.js';
import { declaredGates } from './declaredGates.js';
import type { DocumentReads } from './DocumentReads.js';
import { type MarkdownFrontmatter, readFrontmatterInside } from './DocumentReader.js';
import { relativeInside } from '@loadout/files';

/** The common part of a Markdown capability, read from its frontmatter. */
export interface MarkdownCapability {
  readonly draft: DraftRecord<CapabilityRecord>;
  /** Its frontmatter: a record is made from that alone, so the body is not decoded. */
  readonly document: MarkdownFrontmatter;
  /** The file's path relative to its root, for messages. */
  readonly relative: string;
}

/**
 * Reads a Markdown capability document under `rootDir`: its id (by its kind's rule, see
 * {@link capabilityId}), display name (the frontmatter `name`, else the id), description and
 * declared gates. Null when the file does not exist. With `keep`, the whole document is kept there
 * ({@link DocumentReads}).
 */
export function readMarkdownCapability(
  rootDir: string,
  file: string,
  kindDocument: KindDocument,
  keep?: DocumentReads,
): MarkdownCapability | null {
  const relative = relativeInside(rootDir, file);
  const document = readFrontmatterInside(rootDir, file, relative, keep);
  if (document === null) return null;
  const { name, description, gates } = document.frontmatter;
  const id = capabilityId(name, relative, kindDocument);
  return {
    document,
    relative,
    draft: {
      id,
      name: displayNameOf(name, id, kindDocument),
      description: typeof description === 'string' ? description : '',
      path: file,
      gates: declaredGates(gates, relative),
    },
  };
}
