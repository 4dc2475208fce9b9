import { findFrontmatter } from '@loadout/kernel';
import { stringify as tomlStringify } from 'smol-toml';
import type { DocumentToTranslate, TranslatedDocument } from './RuntimeDocumentSupport.js';

/**
 * A document's text with its frontmatter `name` set to `name` (the line replaced, or added first
 * when there is none), every other byte as written. The name is written as a JSON string, which
 * YAML reads as the same text whatever it holds.
 */
export function withFrontmatterName(text: string, name: string): string {
  const block = findFrontmatter(text);
  const line = `name: ${JSON.stringify(name)}`;
  if (block === null) return `---\n${line}\n---\n${text}`;
  const yaml = text.slice(block.yamlStart, block.bodyStart);
  const replaced = yaml.replace(/^name[ \t]*:.*$/m, line);
  const edited = replaced === yaml ? `${line}\n${yaml}` : replaced;
  return `${text.slice(0, block.yamlStart)}${edited}${text.slice(block.bodyStart)}`;
}

/** The text after the frontmatter block (all of it when there is none). */
export function bodyOf(text: string): string {
  const block = findFrontmatter(text);
  return block === null ? text : text.slice(block.bodyStart);
}

/** The frontmatter `description`, read the simple way a one-line value is written; null when not on one line. */
function oneLineDescription(text: string): string | null {
  const block = findFrontmatter(text);
  if (block === null) return null;
  const match = /^description[ \t]*:[ \t]*(.+)$/m.exec(block.yaml);
  if (match === null) return null;
  const value = (match[1] as string).trim();
  if (/^["']/.test(value)) {
    try {
      return JSON.parse(value.replace(/^'(.*)'$/, (_all, inner: string) => JSON.stringify(inner.replace(/''/g, "'")))) as string;
    } catch {
      return null;
    }
  }
  return /^[>|]/.test(value) ? null : value;
}

/**
 * Claude Code's way of naming a plugin's documents, kept by the copy: its commands go into a folder
 * named after the plugin (Claude Code lists `commands/<plugin>/<name>.md` as `/<plugin>:<name>`),
 * its agents too, their frontmatter `name` set to `<plugin>:<name>` as Claude Code names the
 * agents of the plugins it installs itself, or to the bare name for a version that drops an agent
 * whose name holds a colon (`copiedAgentNames: 'bare'`). The owner's documents keep their own names.
 */
export function claudeCodeDocument(kind: 'agent' | 'command', document: DocumentToTranslate): TranslatedDocument {
  const file = document.plugin === null ? `${document.id}.md` : `${document.plugin}/${document.id}.md`;
  if (kind === 'command' || document.plugin === null) return { file, text: document.text };
  const name = document.copiedAgentNames === 'bare' ? document.id : `${document.plugin}:${document.id}`;
  return { file, text: withFrontmatterName(document.text, name), listedAs: name };
}

/**
 * How a Claude Code command's Markdown reads as a Gemini CLI command: the prompt is the body, the
 * arguments placeholders are Gemini's. Claude Code's numbered arguments (`$1` …) have no equivalent
 * (Gemini passes the whole argument text only): such a command is skipped with the reason.
 */
export const GEMINI_COMMAND_PLACEHOLDERS: Readonly<Record<string, string>> = { $ARGUMENTS: '{{args}}' };
const NUMBERED_ARGUMENT = /\$[1-9]/;

/**
 * A command as Gemini CLI keeps it: `<name>.toml` with `description` and `prompt`, in a folder
 * named after the plugin (Gemini lists `commands/<plugin>/<name>.toml` as `/<plugin>:<name>`).
 */
export function geminiCliCommand(document: DocumentToTranslate): TranslatedDocument {
  let prompt = bodyOf(document.text).replace(/^\r?\n/, '');
  if (NUMBERED_ARGUMENT.test(prompt)) {
    return {
      skip: 'it reads numbered arguments ($1, $2 …), which Gemini CLI commands have no equivalent for (they get the whole text as {{args}})',
    };
  }
  if (/!\{|@\{/.test(prompt)) {
    return { skip: 'its text holds "!{" or "@{", which Gemini CLI would run as a shell command or read as a file' };
  }
  if (prompt.includes('!`')) {
    return { skip: 'it runs shell commands before the prompt (!`…`), which this translation does not carry over to Gemini CLI' };
  }
  for (const [from, to] of Object.entries(GEMINI_COMMAND_PLACEHOLDERS)) prompt = prompt.split(from).join(to);
  const description = oneLineDescription(document.text) ?? document.description;
  const file = document.plugin === null ? `${document.id}.toml` : `${document.plugin}/${document.id}.toml`;
  return { file, text: `${tomlStringify({ ...(description === '' ? {} : { description }), prompt })}\n` };
}
