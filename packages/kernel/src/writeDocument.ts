import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import writeFileAtomic from 'write-file-atomic';

/**
 * The one way Loadout writes a file: to a temporary file beside it, flushed, then renamed over the
 * target, so a reader sees the old bytes or the new ones and never half of either. A file that
 * exists keeps its permission bits and owner (a link is followed, so the file it leads to is the
 * one replaced); `mode` sets them for a file that does not exist yet.
 */
export function writeFileAtomicSync(file: string, content: string | Buffer, options: { readonly mode?: number } = {}): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const mode = options.mode !== undefined && !fs.existsSync(file) ? { mode: options.mode } : {};
  writeFileAtomic.sync(file, content, { fsync: true, ...mode });
}

/** Markdown text with a YAML frontmatter block holding `fields`, then `body`. */
export function formatMarkdown(fields: Readonly<Record<string, unknown>>, body: string): string {
  const frontmatter = yaml.dump(fields, { schema: yaml.CORE_SCHEMA, lineWidth: -1, noRefs: true });
  return `---\n${frontmatter}---\n${body}`;
}
