import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import writeFileAtomic from 'write-file-atomic';

/**
 * The one way Loadout writes a file: to a temporary file beside it, flushed, then renamed over the
 * target, so a reader sees the old bytes or the new ones and never half of either.
 */
export function writeFileAtomicSync(file: string, content: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic.sync(file, content, { fsync: true });
}

/** Markdown text with a YAML frontmatter block holding `fields`, then `body`. */
export function formatMarkdown(fields: Readonly<Record<string, unknown>>, body: string): string {
  const frontmatter = yaml.dump(fields, { schema: yaml.CORE_SCHEMA, lineWidth: -1, noRefs: true });
  return `---\n${frontmatter}---\n${body}`;
}
