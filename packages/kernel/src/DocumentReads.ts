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
 * time. What is kept is what the open saw, not what is on disk now: a caller may use it only once
 * it has shown the file unchanged since, by a stamp of the file taken now that equals the stamp of
 * `stats`. Only the kinds that hand it their reads fill it (skills); anything else is not here,
 * and is read as before.
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
