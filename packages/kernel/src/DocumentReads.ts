import type fs from 'node:fs';
import type { MarkdownFrontmatter } from './DocumentReader.js';

/**
 * A Markdown document as one session open read it: its text (UTF-8), the `fstat` of what was
 * opened, taken before it was read, and the frontmatter the open read from that text (null when it
 * has no block), exactly as `parseMarkdown` reads it.
 */
export interface DocumentRead {
  readonly text: string;
  readonly stats: fs.Stats;
  readonly frontmatter: Readonly<Record<string, unknown>> | null;
}

/**
 * The documents a session open read, kept when the opener asked for them
 * (`SessionLoader.open({ keepDocuments: true })`), so a caller that needs a document's whole text
 * right after the open (the runtime plan reads every skill's `SKILL.md`) does not read it a second
 * time. What is kept is what this open read, in the command that opened it, never a read a
 * source kept from before (a `KeptScanSource` hands what it kept without reading, and nothing is
 * noted): `stats` is as good as a `stat` of the file made at the open, and a caller may take the
 * text for the file's while a stamp it trusts for the file equals that of `stats`. A session that
 * keeps documents lives for one command. Only the kinds that hand it their reads fill it
 * (skills); anything else is not here, and is read as before.
 */
export class DocumentReads {
  private readonly reads = new Map<string, DocumentRead>();

  /** Keeps the text of `buffer`'s first `length` bytes, read from `file` as `stats` says it was when opened, and what its frontmatter holds. */
  note(file: string, buffer: Buffer, length: number, stats: fs.Stats, document: MarkdownFrontmatter): void {
    this.reads.set(file, {
      text: buffer.toString('utf8', 0, length),
      stats,
      frontmatter: document.hasFrontmatter ? document.frontmatter : null,
    });
  }

  /** What the open read of `file` (an absolute path, as the scan named it); undefined when it did not keep it. */
  get(file: string): DocumentRead | undefined {
    return this.reads.get(file);
  }

  get size(): number {
    return this.reads.size;
  }
}
