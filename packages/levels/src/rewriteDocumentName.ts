import { isDeepStrictEqual } from 'node:util';
import { findFrontmatter, type KindDocument, type MarkdownDocument, parseMarkdown } from '@loadout/kernel';
import { editJsonText } from '@loadout/files';
import { TransferRefusedError } from './LevelErrors.js';

/**
 * The `name` as a document holds it, read where its kind writes names: the frontmatter field of a
 * Markdown document, the top-level `"name"` of a JSON one. Anything, or undefined when it has none.
 */
export function writtenName(document: KindDocument, text: string, file: string): unknown {
  if (document.nameField === 'frontmatter') return parseMarkdown(text, file).frontmatter.name;
  return (JSON.parse(text) as { name?: unknown }).name;
}

/** A document's text with its written name set to `name` and every other byte kept, by where its kind writes names. */
export function rewriteDocumentName(document: KindDocument, text: string, name: string, file: string): string {
  return document.nameField === 'frontmatter' ? rewriteMarkdownName(text, name, file) : rewriteJsonName(text, name, file);
}

/**
 * A Markdown document's text with its frontmatter `name` set to `name`, changing nothing else:
 * only the `name:` line (with any continuation lines of a multi-line value) is rewritten, in the
 * quoting style it had; every other line, the line endings and the body keep their bytes. A
 * document with no name line gets one as the first line of its block; a document with no block
 * gets a fresh one, so it is still scanned with the new name.
 *
 * The result is parsed back before it is returned: anything but "the same document with this
 * name" is refused, so a move never writes a document it would read differently.
 *
 * @param file shown in messages
 */
export function rewriteMarkdownName(text: string, name: string, file: string): string {
  const rewritten = renameInMarkdown(text, name);
  const before = parseMarkdown(text, file);
  if (!sameDocumentRenamed(before, rewritten, name, text, file)) {
    throw new TransferRefusedError(`${file}: its name line cannot be rewritten without changing anything else; rename it by hand`);
  }
  return rewritten;
}

function sameDocumentRenamed(before: MarkdownDocument, rewritten: string, name: string, text: string, file: string): boolean {
  let after: MarkdownDocument;
  try {
    after = parseMarkdown(rewritten, file);
  } catch {
    return false;
  }
  const { name: _old, ...otherBefore } = before.frontmatter;
  const { name: got, ...otherAfter } = after.frontmatter;
  const bodyKept = before.hasFrontmatter ? after.body === before.body : after.body === text.replace(/^\uFEFF/, '');
  return got === name && isDeepStrictEqual(otherBefore, otherAfter) && bodyKept;
}

function renameInMarkdown(text: string, name: string): string {
  const block = findFrontmatter(text);
  const bom = text.charCodeAt(0) === 0xfeff ? '\uFEFF' : '';
  if (block === null) {
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    return `${bom}---${eol}name: ${yamlScalar(name, 'plain')}${eol}---${eol}${text.slice(bom.length)}`;
  }
  const yamlEnd = block.yamlStart + block.yaml.length;
  const lines = linesOf(text, block.yamlStart, yamlEnd);
  const at = lines.findIndex((line) => NAME_KEY.test(line.text));
  if (at === -1) {
    const eol = text.slice(0, block.yamlStart).endsWith('\r\n') ? '\r\n' : '\n';
    return `${text.slice(0, block.yamlStart)}name: ${yamlScalar(name, 'plain')}${eol}${text.slice(block.yamlStart)}`;
  }
  const line = lines[at] as Line;
  // A value that goes on over indented lines (a folded or multi-line scalar) belongs to the name;
  // blank lines after its last indented line do not.
  let last = at;
  for (let next = at + 1; next < lines.length; next += 1) {
    const candidate = (lines[next] as Line).text;
    if (candidate.trim() === '') continue;
    if (!/^[ \t]/.test(candidate)) break;
    last = next;
  }
  const keyPart = (NAME_KEY.exec(line.text) as RegExpExecArray)[0];
  const oldValue = line.text.slice(keyPart.length);
  const style = oldValue.startsWith('"') ? 'double' : oldValue.startsWith("'") ? 'single' : 'plain';
  const end = (lines[last] as Line).end;
  return `${text.slice(0, line.start)}${keyPart}${yamlScalar(name, style)}${text.slice(end)}`;
}

/** A top-level `name:` key (plain or quoted) and the blanks after its colon. */
const NAME_KEY = /^(?:name|"name"|'name')[ \t]*:(?:[ \t]+|(?=$))/;

interface Line {
  /** Offset of the first character. */
  readonly start: number;
  /** Offset just past the content, before `\r\n` or `\n`. */
  readonly end: number;
  readonly text: string;
}

function linesOf(text: string, from: number, to: number): Line[] {
  const lines: Line[] = [];
  let start = from;
  while (start < to) {
    const newline = text.indexOf('\n', start);
    const stop = newline === -1 || newline >= to ? to : newline;
    const end = stop > start && text.charCodeAt(stop - 1) === 13 ? stop - 1 : stop;
    lines.push({ start, end, text: text.slice(start, end) });
    start = stop + 1;
  }
  return lines;
}

/**
 * `value` as a one-line YAML scalar in the asked style. A plain scalar is used only when it reads
 * back as the same string; anything else is double-quoted with JSON escapes, which YAML reads
 * the same way.
 */
function yamlScalar(value: string, style: 'plain' | 'single' | 'double'): string {
  const double = JSON.stringify(value);
  if (style === 'double') return double;
  if (style === 'single') return /[\r\n]/.test(value) ? double : `'${value.replace(/'/g, "''")}'`;
  const readsBack = (() => {
    try {
      return parseMarkdown(`---\nname: ${value}\n---\n`, 'name').frontmatter.name === value;
    } catch {
      return false;
    }
  })();
  return /^[^\s"'#&*!|>%@`{}[\],?:-][^\r\n]*$/.test(value) && !/\s$/.test(value) && readsBack ? value : double;
}

/**
 * A JSON document's text (a server definition) with its top-level `"name"` set to `name`: only
 * that string literal is replaced (`editJsonText`), so the file's indentation, key order and every
 * other byte stay. Anything but "the same definition with this name" is refused.
 */
export function rewriteJsonName(text: string, name: string, file: string): string {
  const parsed = JSON.parse(text) as { name?: unknown };
  if (typeof parsed.name !== 'string') throw new TransferRefusedError(`${file}: has no top-level "name" string to rewrite`);
  const rewritten = editJsonText(text, [{ path: ['name'], value: name }]);
  if (rewritten === null) {
    throw new TransferRefusedError(`${file}: its "name" cannot be rewritten without changing anything else; rename it by hand`);
  }
  return rewritten;
}
