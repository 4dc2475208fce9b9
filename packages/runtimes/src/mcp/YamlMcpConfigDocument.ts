import { isMap, isScalar, type Node, type Pair, parseAllDocuments, parseDocument, stringify, type YAMLMap } from 'yaml';
import type { Document } from 'yaml';
import {
  EditedMcpConfig,
  lineEnd,
  lineEnding,
  lineStart,
  McpConfigLayoutError,
  McpConfigUnreadableError,
  type McpEntryEdit,
  type McpEntryValue,
  onlyIndentBefore,
} from './McpConfigDocument.js';

/** A stretch of whole lines of the text. */
interface Lines {
  readonly start: number;
  readonly end: number;
}

/**
 * A YAML configuration file (Goose's `config.yaml`) edited entry by entry. Positions come from the
 * `yaml` package's syntax tree (its Document keeps every node's offsets); an entry's own text is
 * that package's block layout of the entry alone, indented as the file indents its entries. The
 * text is spliced, never re-serialised: an entry is added after the last entry under the
 * container (the container is added at the end when absent), replaced where it stands, and
 * removed with exactly its own lines, so comments, quoting, spacing and the order of everything
 * else stay byte for byte.
 */
export class YamlMcpConfigDocument extends EditedMcpConfig {
  readonly format = 'yaml' as const;
  private document!: Document.Parsed;
  private parsed: Record<string, unknown> = {};

  /** `text` null: the file does not exist yet. */
  constructor(text: string | null, container: string, fileLabel: string) {
    super(text, container, fileLabel);
    this.parse();
  }

  removeEmptyContainer(): void {
    const pair = this.containerPair();
    if (pair === null) return;
    const value = pair.value as Node | null;
    const empty = value === null || (isScalar(value) && value.value === null) || (isMap(value) && value.items.length === 0);
    if (!empty) return;
    const lines = this.pairLines(pair);
    this.current = `${this.current.slice(0, lines.start)}${this.current.slice(lines.end)}`;
    this.parse();
  }

  isEmpty(): boolean {
    return this.current.trim() === '';
  }

  protected edit(edits: readonly McpEntryEdit[]): void {
    for (const { name, value } of edits) {
      if (value === undefined) this.removeEntry(name);
      else this.setEntry(name, value);
      // Offsets move with every edit; the next one needs a fresh tree.
      this.parse();
    }
  }

  private setEntry(name: string, value: McpEntryValue): void {
    const eol = lineEnding(this.current);
    const pair = this.containerPair();
    if (pair === null) {
      // No container yet: it goes at the end of the file, with the entry in it.
      let head = this.current;
      if (head !== '' && !head.endsWith('\n')) head += eol;
      this.current = `${head}${this.containerText(name, value, '', eol)}`;
      return;
    }
    const map = pair.value as Node | null;
    const keyIndent = this.indentAt((pair.key as Node).range?.[0] ?? 0);
    if (map === null || (isScalar(map) && map.value === null) || (isMap(map) && map.flow === true && map.items.length === 0)) {
      // `extensions:` alone or `extensions: {}`: that line becomes the container holding the entry.
      const lines = this.pairLines(pair);
      if (!/^[ \t]*[A-Za-z_][\w-]*:[ \t]*(\{\})?[ \t]*\r?\n?$/.test(this.current.slice(lines.start, lines.end))) {
        throw new McpConfigLayoutError(
          `${this.fileLabel}: the empty "${this.container}" line carries more than the key; Loadout leaves it as it is`,
        );
      }
      this.current = `${this.current.slice(0, lines.start)}${this.containerText(name, value, keyIndent, eol)}${this.current.slice(lines.end)}`;
      return;
    }
    if (!isMap(map) || map.flow === true) {
      throw new McpConfigLayoutError(
        `${this.fileLabel}: "${this.container}" is not a block map of entries; write it as one entry per key so Loadout can add and remove its own`,
      );
    }
    const items = map.items as Pair[];
    const existing = items.find((item) => isScalar(item.key) && String(item.key.value) === name);
    const itemIndent = items.length > 0 ? this.indentAt((items[0]?.key as Node).range?.[0] ?? 0) : `${keyIndent}  `;
    const entry = this.entryText(name, value, itemIndent, eol);
    if (existing !== undefined) {
      const lines = this.pairLines(existing);
      this.current = `${this.current.slice(0, lines.start)}${entry}${this.current.slice(lines.end)}`;
      return;
    }
    const last = items[items.length - 1] as Pair;
    const at = this.pairLines(last).end;
    let head = this.current.slice(0, at);
    if (!head.endsWith('\n')) head += eol;
    this.current = `${head}${entry}${this.current.slice(at)}`;
  }

  private removeEntry(name: string): void {
    const map = this.containerPair()?.value;
    if (!isMap(map)) return;
    const pair = (map.items as Pair[]).find((item) => isScalar(item.key) && String(item.key.value) === name);
    if (pair === undefined) return;
    if (map.flow === true) {
      throw new McpConfigLayoutError(`${this.fileLabel}: "${this.container}" is a flow map; Loadout removes entries from block maps only`);
    }
    const lines = this.pairLines(pair);
    this.current = `${this.current.slice(0, lines.start)}${this.current.slice(lines.end)}`;
    if (map.items.length === 1) this.markEmptyMap();
  }

  /**
   * The container left with no entry reads as null (`extensions:` alone), not as the empty map it
   * is, and an empty map is how Goose and the owner write one (`extensions: {}`): `{}` is put after
   * its colon, so a container Loadout filled and emptied again is byte for byte what it was.
   */
  private markEmptyMap(): void {
    this.parse();
    const pair = this.containerPair();
    const key = pair?.key as Node | undefined;
    const value = pair?.value as Node | null | undefined;
    const keyEnd = key?.range?.[1];
    if (keyEnd === undefined || !(value === null || (isScalar(value) && value.value === null))) return;
    const colon = this.current.indexOf(':', keyEnd);
    if (colon === -1) return;
    this.current = `${this.current.slice(0, colon + 1)} {}${this.current.slice(colon + 1)}`;
  }

  /** The lines a key and its value stand on: from the key's line to the end of the value's last line. */
  private pairLines(pair: Pair): Lines {
    const key = pair.key as Node;
    const keyStart = key.range?.[0] ?? 0;
    const valueEnd = Math.max(key.range?.[1] ?? keyStart, (pair.value as Node | null)?.range?.[1] ?? 0);
    if (!onlyIndentBefore(this.current, keyStart)) {
      throw new McpConfigLayoutError(`${this.fileLabel}: the entry at offset ${keyStart} does not start its own line`);
    }
    return { start: lineStart(this.current, keyStart), end: lineEnd(this.current, Math.max(valueEnd - 1, keyStart)) };
  }

  /** The spaces before the text at `offset` on its line. */
  private indentAt(offset: number): string {
    return this.current.slice(lineStart(this.current, offset), offset);
  }

  /** `name:` and its value as block YAML, every line indented by `indent`. */
  private entryText(name: string, value: McpEntryValue, indent: string, eol: string): string {
    const block = stringify({ [name]: value }, { indent: 2, lineWidth: 0, minContentWidth: 0 });
    return block
      .replace(/\n$/, '')
      .split('\n')
      .map((line) => `${indent}${line}${eol}`)
      .join('');
  }

  /** The whole container with one entry, for a file that has none. */
  private containerText(name: string, value: McpEntryValue, indent: string, eol: string): string {
    return `${indent}${this.container}:${eol}${this.entryText(name, value, `${indent}  `, eol)}`;
  }

  /** The top-level `container:` pair, or null when the file has none. */
  private containerPair(): Pair | null {
    const root = this.document.contents;
    if (!isMap(root)) return null;
    return ((root as YAMLMap).items as Pair[]).find((item) => isScalar(item.key) && item.key.value === this.container) ?? null;
  }

  protected value(): Record<string, unknown> {
    return this.parsed;
  }

  protected parse(): void {
    const documents = parseAllDocuments(this.current);
    if (!Array.isArray(documents) || documents.length > 1) {
      throw new McpConfigUnreadableError(`${this.fileLabel} holds more than one YAML document; Loadout leaves it as it is`);
    }
    const document = parseDocument(this.current, { uniqueKeys: true });
    const error = document.errors[0];
    if (error !== undefined) {
      throw new McpConfigUnreadableError(
        `${this.fileLabel} is not valid YAML (${error.code}: ${error.message.split('\n')[0]}); Loadout leaves it as it is`,
        { cause: error },
      );
    }
    const root = document.contents;
    if (root !== null && !(isScalar(root) && root.value === null) && !isMap(root)) {
      throw new McpConfigUnreadableError(`${this.fileLabel} does not hold a YAML map; Loadout leaves it as it is`);
    }
    if (isMap(root) && root.flow === true) {
      throw new McpConfigLayoutError(`${this.fileLabel} is one flow map ({ … }); Loadout edits block YAML only and leaves it as it is`);
    }
    let data: unknown;
    try {
      data = document.toJS({ maxAliasCount: 100 });
    } catch (cause) {
      throw new McpConfigUnreadableError(
        `${this.fileLabel} cannot be read as data (${(cause as Error).message}); Loadout leaves it as it is`,
        {
          cause,
        },
      );
    }
    this.document = document;
    this.parsed = data !== null && typeof data === 'object' && !(data instanceof Map) ? (data as Record<string, unknown>) : {};
  }
}
