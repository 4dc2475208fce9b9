import yaml from 'js-yaml';

/** Markdown text with a YAML frontmatter block holding `fields`, then `body`. */
export function formatMarkdown(fields: Readonly<Record<string, unknown>>, body: string): string {
  const frontmatter = yaml.dump(fields, { schema: yaml.CORE_SCHEMA, lineWidth: -1, noRefs: true });
  return `---\n${frontmatter}---\n${body}`;
}
