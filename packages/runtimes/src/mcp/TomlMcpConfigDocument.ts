import { stringify } from 'smol-toml';
import { getStaticTOMLValue, parseTOML } from 'toml-eslint-parser';
import type { AST } from 'toml-eslint-parser';
import {
  type McpEntryEdit,
  EditedMcpConfig,
  lineEnd,
  lineEnding,
  lineStart,
  McpConfigLayoutError,
  McpConfigUnreadableError,
  type McpEntryValue,
  onlyIndentBefore,
} from './McpConfigDocument.js';

/** A stretch of the text that belongs to one server entry: whole lines. */
interface Block {
  readonly start: number;
  readonly end: number;
}

/**
 * A TOML configuration file (Codex's `config.toml`) edited statement by statement. The positions
 * come from toml-eslint-parser's syntax tree and an entry's text from smol-toml's serializer: an
 * entry is written as its own `[mcp_servers.<name>]` tables (the layout `codex mcp add` writes),
 * added after the last server table (else at the end), replaced where it stands, and removed with
 * exactly its own lines (and the blank line that separated it). Nothing else is rewritten, so
 * comments, spacing, quoting, key order and CRLF line endings stay byte for byte.
 */
export class TomlMcpConfigDocument extends EditedMcpConfig {
  readonly format = 'toml' as const;
  private ast!: AST.TOMLProgram;

  /** `text` null: the file does not exist yet. */
  constructor(text: string | null, container: string, fileLabel: string) {
    super(text, container, fileLabel);
    this.parse();
  }

  protected edit(edits: readonly McpEntryEdit[]): void {
    this.refuseInlineContainer();
    for (const { name, value } of edits) {
      if (value === undefined) this.removeEntry(name);
      else this.setEntry(name, value);
      // Positions move with every edit; the next one needs a fresh tree.
      this.parse();
    }
  }

  private setEntry(name: string, value: McpEntryValue): void {
    const eol = lineEnding(this.current);
    const entry = stringify({ [this.container]: { [name]: value } })
      .split('\n')
      .join(eol);
    const blocks = this.blocksOf(name);
    // A replaced entry takes the place of the old one; a new one goes after the last server table.
    const at = blocks.length > 0 ? this.cutEntry(blocks) : this.insertionPoint();
    let head = this.current.slice(0, at);
    if (head !== '' && !head.endsWith('\n')) head += eol;
    if (head !== '' && !/(^|\n)[ \t]*\r?\n$/.test(head)) head += eol;
    this.current = `${head}${entry}${this.current.slice(at)}`;
  }

  private removeEntry(name: string): void {
    const blocks = this.blocksOf(name);
    if (blocks.length > 0) this.cutEntry(blocks);
  }

  /**
   * Cuts an entry's blocks out of the text, each with the blank line that separated it from what
   * precedes it when a blank line (or the end of the text) follows it as well: exactly what adding
   * the entry inserted. Returns where the first block was.
   */
  private cutEntry(blocks: readonly Block[]): number {
    const text = this.current;
    const widened = blocks.map((block) => {
      const previousLine = block.start === 0 ? null : text.slice(lineStart(text, block.start - 1), block.start);
      const nextLine = block.end >= text.length ? '' : text.slice(block.end, lineEnd(text, block.end));
      const blankBefore = previousLine !== null && /^[ \t]*\r?\n$/.test(previousLine);
      const blankAfter = block.end >= text.length || /^[ \t]*\r?\n?$/.test(nextLine);
      return blankBefore && blankAfter ? { start: lineStart(text, block.start - 1), end: block.end } : block;
    });
    const merged = merge(widened);
    this.current = cut(text, merged);
    return (merged[0] as Block).start;
  }

  removeEmptyContainer(): void {
    // Entries are written as `[mcp_servers.<name>]` tables: there is no container of Loadout's to remove.
  }

  isEmpty(): boolean {
    return this.current.trim() === '';
  }

  /**
   * Every statement that defines `<container>.<name>` or something below it: its tables (with
   * their key/value lines), and key/value lines that reach it through dotted keys or an inline
   * table in a parent table.
   */
  private blocksOf(name: string): Block[] {
    const top = this.ast.body[0];
    if (top === undefined) return [];
    const blocks: Block[] = [];
    const lines = (from: number, to: number): Block => ({
      start: onlyIndentBefore(this.current, from) ? lineStart(this.current, from) : from,
      end: lineEnd(this.current, to),
    });
    const inside = (path: readonly (string | number)[]): boolean => path[0] === this.container && path[1] === name;
    const visitKeyValues = (tablePath: readonly (string | number)[], body: readonly AST.TOMLKeyValue[]): void => {
      for (const pair of body) {
        if (inside([...tablePath, ...keyPath(pair.key)])) blocks.push(lines(pair.range[0], pair.range[1]));
      }
    };
    for (const node of top.body) {
      if (node.type === 'TOMLKeyValue') {
        visitKeyValues([], [node]);
        continue;
      }
      if (inside(node.resolvedKey)) blocks.push(lines(node.range[0], node.range[1]));
      else visitKeyValues(node.resolvedKey, node.body);
    }
    return merge(blocks);
  }

  /** Just after the last line of the last table under the container, else the end of the text. */
  private insertionPoint(): number {
    const top = this.ast.body[0];
    let at = this.current.length;
    for (const node of top?.body ?? []) {
      if (node.type === 'TOMLTable' && node.resolvedKey[0] === this.container && node.resolvedKey.length > 1)
        at = lineEnd(this.current, node.range[1]);
    }
    return at;
  }

  /** `mcp_servers = { … }`: an inline table cannot gain or lose an entry by whole lines. */
  private refuseInlineContainer(): void {
    for (const node of this.ast.body[0]?.body ?? []) {
      if (node.type === 'TOMLKeyValue' && keyPath(node.key).length === 1 && keyPath(node.key)[0] === this.container) {
        throw new McpConfigLayoutError(
          `${this.fileLabel} declares "${this.container}" as one inline table; write it as [${this.container}.<name>] tables so Loadout can add and remove its own entries`,
        );
      }
    }
  }

  protected value(): Record<string, unknown> {
    return getStaticTOMLValue(this.ast) as Record<string, unknown>;
  }

  protected parse(): void {
    try {
      this.ast = parseTOML(this.current);
    } catch (error) {
      throw new McpConfigUnreadableError(
        `${this.fileLabel} is not valid TOML (${(error as Error).message.split('\n')[0]}); Loadout leaves it as it is`,
        { cause: error },
      );
    }
  }
}

/** A key's segments as plain strings. */
function keyPath(key: AST.TOMLKey): string[] {
  return key.keys.map((part) => (part.type === 'TOMLBare' ? part.name : part.value));
}

/** Blocks in text order, overlapping or touching ones joined. */
function merge(blocks: readonly Block[]): Block[] {
  const sorted = [...blocks].sort((a, b) => a.start - b.start);
  const merged: Block[] = [];
  for (const block of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && block.start <= last.end)
      merged[merged.length - 1] = { start: last.start, end: Math.max(last.end, block.end) };
    else merged.push(block);
  }
  return merged;
}

/** The text without the blocks. */
function cut(text: string, blocks: readonly Block[]): string {
  let result = text;
  for (const block of [...blocks].sort((a, b) => b.start - a.start)) result = `${result.slice(0, block.start)}${result.slice(block.end)}`;
  return result;
}
