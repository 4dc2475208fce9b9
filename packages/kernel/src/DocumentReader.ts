import path from 'node:path';
import {
  DocumentRefusedError,
  type FileBytes,
  type FileReader,
  nodeFileReader,
  readRegularFile,
  type RegularFileOptions,
  relativeInside,
} from '@loadout/files';
import yaml from 'js-yaml';
import type { DocumentReads } from './DocumentReads.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './jsonDepth.js';
import { parseFlatMapping } from './parseFlatMapping.js';

/** The largest document Loadout reads. */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;
/** The largest frontmatter block Loadout parses. */
export const MAX_FRONTMATTER_BYTES = 64 * 1024;
/** How many values a parsed frontmatter may hold once aliases are expanded. */
const MAX_FRONTMATTER_NODES = 10_000;
const MAX_FRONTMATTER_DEPTH = 64;

export interface MarkdownDocument {
  /** The YAML frontmatter as plain data; empty when the document has none. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  readonly hasFrontmatter: boolean;
  /** Everything after the frontmatter block. */
  readonly body: string;
}

/** Where a frontmatter block sits in a document's text. */
export interface FrontmatterBlock {
  /** The text between the fences. */
  readonly yaml: string;
  /** The opening fence line, e.g. `---`, `---yaml` or `---js`. */
  readonly fence: string;
  /** Offset in the text where the body starts (after the closing fence line). */
  readonly bodyStart: number;
  /** Offset where the YAML starts (after the opening fence line). */
  readonly yamlStart: number;
}

/**
 * Finds the frontmatter block: a first line starting `---` and a later line that is exactly `---`
 * (or `...`). Returns null when the text has no block.
 */
export function findFrontmatter(text: string): FrontmatterBlock | null {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (!text.startsWith('---', start)) return null;
  const firstEnd = text.indexOf('\n', start);
  if (firstEnd === -1) return null;
  const fence = text.slice(start, firstEnd).replace(/\r$/, '').trimEnd();
  if (fence.startsWith('----')) return null; // a thematic break, not a fence
  const yamlStart = firstEnd + 1;
  let lineStart = yamlStart;
  while (lineStart <= text.length) {
    const lineEnd = text.indexOf('\n', lineStart);
    const end = lineEnd === -1 ? text.length : lineEnd;
    const line = text.slice(lineStart, end).replace(/\r$/, '');
    if (line === '---' || line === '...') {
      return {
        yaml: text.slice(yamlStart, lineStart),
        fence,
        yamlStart,
        bodyStart: lineEnd === -1 ? text.length : lineEnd + 1,
      };
    }
    if (lineEnd === -1) break;
    lineStart = lineEnd + 1;
  }
  return null;
}

/**
 * Parses a Markdown document's frontmatter as YAML data. Never evaluates code: a block fenced as
 * another language (`---js`, `---javascript`, `---coffee` …) is refused, the YAML schema has no
 * executable types, and the parsed value is bounded so an alias bomb is refused quickly.
 *
 * @param file shown in error messages; never read here
 */
export function parseMarkdown(text: string, file: string): MarkdownDocument {
  const block = findFrontmatter(text);
  const frontmatter = frontmatterOf(text, block, file);
  return block === null
    ? { frontmatter, hasFrontmatter: false, body: text }
    : { frontmatter, hasFrontmatter: true, body: text.slice(block.bodyStart) };
}

/** The frontmatter of `text` whose block is `block` (null: it has none), or the refusal of it. */
function frontmatterOf(text: string, block: FrontmatterBlock | null, file: string): Readonly<Record<string, unknown>> {
  if (block === null) {
    const newline = text.indexOf('\n');
    const firstLine = (newline === -1 ? text : text.slice(0, newline)).replace(/^\uFEFF/, '').replace(/\r$/, '');
    if (/^---[ \t]*[^\s-]/.test(firstLine)) refuseLanguage(firstLine.slice(3).trim(), file);
    if (/^---[ \t]*$/.test(firstLine)) {
      throw new DocumentRefusedError('FRONTMATTER_UNCLOSED', `${file}: the frontmatter block opened on line 1 is never closed with ---`);
    }
    return {};
  }
  return blockFrontmatter(block.yaml, block.fence, file);
}

/** The frontmatter of a block fenced by `fence` holding `yamlText`, or the refusal of it. */
function blockFrontmatter(yamlText: string, fence: string, file: string): Readonly<Record<string, unknown>> {
  const language = fence === '---' ? '' : fence.slice(3).trim().toLowerCase();
  if (language !== '' && language !== 'yaml' && language !== 'yml') refuseLanguage(language, file);
  if (yamlText.length > MAX_FRONTMATTER_BYTES) {
    throw new DocumentRefusedError('FRONTMATTER_TOO_LARGE', `${file}: frontmatter is larger than ${MAX_FRONTMATTER_BYTES} bytes`);
  }
  let parsed: unknown;
  try {
    // The common flat shape is read by a small reader that gives what js-yaml gives; anything
    // else goes to js-yaml (see parseFlatMapping).
    parsed = parseFlatMapping(yamlText) ?? yaml.load(yamlText, { schema: yaml.CORE_SCHEMA, filename: file });
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new DocumentRefusedError('FRONTMATTER_MALFORMED', `${file}: frontmatter is not valid YAML (${reason})`, {
      cause: error,
    });
  }
  if (parsed === undefined || parsed === null) parsed = {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new DocumentRefusedError('FRONTMATTER_MALFORMED', `${file}: frontmatter must be a mapping of fields`);
  }
  assertBounded(parsed, file);
  return parsed as Record<string, unknown>;
}

function refuseLanguage(language: string, file: string): never {
  throw new DocumentRefusedError(
    'FRONTMATTER_ENGINE_REFUSED',
    `${file}: frontmatter fenced as "${language.slice(0, 40)}" is refused; only YAML data is read, never code`,
  );
}

/**
 * Walks the value the way a consumer would (aliases expanded) and stops at a budget, so a value
 * that shares one object a billion times is refused after a few thousand steps.
 */
function assertBounded(value: unknown, file: string): void {
  if (countValues(value, 0, 0) > MAX_FRONTMATTER_NODES) {
    throw new DocumentRefusedError(
      'FRONTMATTER_TOO_COMPLEX',
      `${file}: frontmatter expands to more than ${MAX_FRONTMATTER_NODES} values or ${MAX_FRONTMATTER_DEPTH} levels`,
    );
  }
}

/**
 * `counted` plus the values `node` holds at `depth`, itself included; Infinity as soon as the count
 * passes {@link MAX_FRONTMATTER_NODES} or a value lies deeper than {@link MAX_FRONTMATTER_DEPTH}.
 * A function of its own, not a closure, so a scan of many documents makes none per document.
 */
function countValues(node: unknown, depth: number, counted: number): number {
  let count = counted + 1;
  if (count > MAX_FRONTMATTER_NODES || depth > MAX_FRONTMATTER_DEPTH) return Infinity;
  if (node === null || typeof node !== 'object') return count;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length && count !== Infinity; i += 1) count = countValues(node[i], depth + 1, count);
    return count;
  }
  for (const key in node) {
    count = countValues((node as Record<string, unknown>)[key], depth + 1, count);
    if (count === Infinity) return count;
  }
  return count;
}

/** The one buffer documents are read into (1 MiB, made at the first read); the next reading overwrites it. */
const documentBytes: FileBytes = { buffer: Buffer.alloc(0), length: 0, mode: 0 };
const DOCUMENT_READING: RegularFileOptions = { tooLarge: (file) => tooLarge(file) };

/**
 * Reads a text file that lives under `root`. A symlink is followed only when its real target is
 * still inside the root's real path; only a regular file is read (a FIFO, a socket, a device or
 * a folder in a document's place is refused as `NOT_A_FILE` without waiting on it); anything
 * larger than {@link MAX_DOCUMENT_BYTES} is refused. Returns null when the file does not exist.
 *
 * Synchronous on purpose: a scan reads thousands of small files and the thread pool round trip
 * costs more than the read. Nothing here can wait on another process: the open does not block
 * (`O_NONBLOCK`), and `fstat` says what was opened before anything is read. Every path it
 * looks at goes through `files`.
 */
export function readTextInside(root: string, file: string, files: FileReader = nodeFileReader): string | null {
  const length = readBytesInside(root, file, files);
  return length === null ? null : documentBytes.buffer.toString('utf8', 0, length);
}

/**
 * Reads a file as {@link readTextInside} does into the shared `documentBytes`, which the next
 * reading overwrites; the number of bytes read, or null when the file does not exist.
 */
function readBytesInside(root: string, file: string, files: FileReader): number | null {
  if (documentBytes.buffer.length === 0) documentBytes.buffer = Buffer.allocUnsafe(MAX_DOCUMENT_BYTES + 1);
  const options = files === nodeFileReader ? DOCUMENT_READING : { ...DOCUMENT_READING, files };
  return readRegularFile(root, file, MAX_DOCUMENT_BYTES, documentBytes, options) ? documentBytes.length : null;
}

/** A Markdown document's frontmatter, without its body. */
export type MarkdownFrontmatter = Pick<MarkdownDocument, 'frontmatter' | 'hasFrontmatter'>;

/**
 * Reads the frontmatter of a Markdown document under `root` exactly as {@link readMarkdownInside}
 * reads it (the same checks, the same refusals), decoding the text only up to the line that
 * closes the block: a scan makes records from frontmatter alone, and decoding every body was a
 * good part of a cold open's allocations. Null when the file does not exist.
 *
 * @param relative the file's path relative to `root`, shown in error messages
 * @param keep where the whole document is kept for a caller that reads it next, when asked for
 */
export function readFrontmatterInside(root: string, file: string, relative: string, keep?: DocumentReads): MarkdownFrontmatter | null {
  const length = readBytesInside(root, file, nodeFileReader);
  if (length === null) return null;
  const buffer = documentBytes.buffer;
  const document = frontmatterOfBytes(buffer, length, relative);
  // Kept only once it was not refused: a refused document makes no record, and nothing asks for it.
  if (keep !== undefined && documentBytes.stats !== undefined) keep.note(file, buffer, length, documentBytes.stats, document);
  return document;
}

/** The frontmatter of a document's first `length` bytes, as {@link readFrontmatterInside} reads it. */
function frontmatterOfBytes(buffer: Buffer, length: number, relative: string): MarkdownFrontmatter {
  // The common document: a bare `---` line, a block, a line that closes it. Only its YAML is
  // decoded; every other document is decoded up to where its block ends and read as text.
  const yamlStart = bareFenceEnd(buffer, length);
  const yamlEnd = yamlStart === -1 ? -1 : closingLineStart(buffer, length, yamlStart);
  if (yamlEnd !== -1)
    return { frontmatter: blockFrontmatter(buffer.toString('utf8', yamlStart, yamlEnd), '---', relative), hasFrontmatter: true };
  const text = buffer.toString('utf8', 0, frontmatterBytes(buffer, length));
  const block = findFrontmatter(text);
  return { frontmatter: frontmatterOf(text, block, relative), hasFrontmatter: block !== null };
}

/**
 * Where the second line starts when the first (after a UTF-8 byte-order mark) is exactly `---`,
 * with or without a `\r` before its newline: the fence {@link findFrontmatter} reads as `---`.
 * -1 otherwise.
 */
function bareFenceEnd(buffer: Uint8Array, length: number): number {
  const start = length >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  if (length < start + 4 || buffer[start] !== DASH || buffer[start + 1] !== DASH || buffer[start + 2] !== DASH) return -1;
  if (buffer[start + 3] === NEWLINE) return start + 4;
  return length > start + 4 && buffer[start + 3] === CARRIAGE_RETURN && buffer[start + 4] === NEWLINE ? start + 5 : -1;
}

/**
 * Where the line that closes a block starts (`---` or `...`, a `\r` allowed before its end), the
 * first such line from `from` on, as {@link findFrontmatter} finds it; -1 when none does.
 */
function closingLineStart(buffer: Uint8Array, length: number, from: number): number {
  let lineStart = from;
  for (let at = from; at <= length; at += 1) {
    if (at < length && buffer[at] !== NEWLINE) continue;
    const end = at > lineStart && buffer[at - 1] === CARRIAGE_RETURN ? at - 1 : at;
    if (end - lineStart === 3 && isFenceLine(buffer, lineStart)) return lineStart;
    lineStart = at + 1;
  }
  return -1;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const DASH = 0x2d;
const DOT = 0x2e;

/**
 * How many of a document's first `length` bytes {@link findFrontmatter} needs to find its block
 * as it would in the whole text: none when the text does not start with `---` (after a UTF-8
 * byte-order mark: then there is no block, and nothing to refuse), up to the end of the line
 * that closes the block, else all of them (an unclosed block is refused by what its first line
 * says). Lines end at `\n`, which UTF-8 never uses inside a character, so the bytes before one
 * decode as they do in the whole text.
 */
export function frontmatterBytes(buffer: Uint8Array, length: number): number {
  const start = length >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  if (length < start + 3 || buffer[start] !== DASH || buffer[start + 1] !== DASH || buffer[start + 2] !== DASH) return 0;
  let at = start + 3;
  while (at < length && buffer[at] !== NEWLINE) at += 1;
  let lineStart = at + 1;
  for (at = lineStart; at <= length; at += 1) {
    if (at < length && buffer[at] !== NEWLINE) continue;
    const end = at > lineStart && buffer[at - 1] === CARRIAGE_RETURN ? at - 1 : at;
    if (end - lineStart === 3 && isFenceLine(buffer, lineStart)) return at === length ? length : at + 1;
    lineStart = at + 1;
  }
  return length;
}

/** `---` or `...` at `at`. */
function isFenceLine(buffer: Uint8Array, at: number): boolean {
  const first = buffer[at];
  return (first === DASH || first === DOT) && buffer[at + 1] === first && buffer[at + 2] === first;
}

function tooLarge(file: string): DocumentRefusedError {
  return new DocumentRefusedError('DOCUMENT_TOO_LARGE', `${path.basename(file)}: larger than ${MAX_DOCUMENT_BYTES} bytes`);
}

/** Reads and parses a Markdown document under `root`; null when it does not exist. */
export function readMarkdownInside(root: string, file: string, files: FileReader = nodeFileReader): MarkdownDocument | null {
  const text = readTextInside(root, file, files);
  return text === null ? null : parseMarkdown(text, relativeInside(root, file));
}

/** Reads and parses a JSON document under `root`; null when it does not exist. */
export function readJsonInside(root: string, file: string, files: FileReader = nodeFileReader): unknown {
  const text = readTextInside(root, file, files);
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new DocumentRefusedError('JSON_MALFORMED', `${relativeInside(root, file)}: not valid JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
  // A manifest or index from a repository is untrusted: nested deeper than the one limit, whatever
  // walks it next (a schema, a fingerprint) would exhaust the stack.
  if (exceedsJsonDepth(value)) {
    throw new DocumentRefusedError(
      'JSON_TOO_DEEP',
      `${relativeInside(root, file)}: nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
  return value;
}
