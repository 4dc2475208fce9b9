/**
 * A command's prompt with what was passed to it put in, the way runtimes that read Markdown
 * commands do: `$ARGUMENTS` is the whole text, `$1` … `$9` its words in order (a missing word is
 * empty). Nothing else is touched: a `!` line or an `@file` stays text, it is never run or read.
 */
export function commandPrompt(body: string, passed: string): string {
  const words = passed.trim() === '' ? [] : passed.trim().split(/\s+/);
  return body.replace(/\$(ARGUMENTS\b|[1-9](?![0-9]))/g, (_match, name: string) =>
    name === 'ARGUMENTS' ? passed : (words[Number(name) - 1] ?? ''),
  );
}
