import { applyEdits, type Edit, findNodeAtLocation, format, type FormattingOptions, getNodeValue, modify, type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import {
  EditedMcpConfig,
  lineEnding,
  lineStart,
  McpConfigLayoutError,
  McpConfigUnreadableError,
  type McpEntryValue,
  onlyIndentBefore,
} from './McpConfigDocument.js';

/**
 * A JSON configuration file (Claude Code's `~/.claude.json`, a project's `.mcp.json`) edited with
 * jsonc-parser: positions come from its syntax tree, an added entry is inserted by its `modify`
 * and laid out by its formatter over the inserted text only, in the file's own indentation and
 * line ending; a replaced value is swapped in place; a removed entry takes only its own lines.
 */
export class JsonMcpConfigDocument extends EditedMcpConfig {
  readonly format = 'json' as const;

  /** `text` null: the file does not exist yet. */
  constructor(text: string | null, container: string, fileLabel: string) {
    super(text, container, fileLabel);
    this.parse();
  }

  set(name: string, value: McpEntryValue): void {
    const before = this.value();
    const existing = this.root() === null ? undefined : findNodeAtLocation(this.root() as Node, [this.container, name]);
    if (existing !== undefined) {
      const indent = this.indentOf(existing.parent ?? existing);
      const { insertSpaces, tabSize } = this.options();
      const laid = JSON.stringify(value, null, insertSpaces ? ' '.repeat(tabSize ?? 2) : '\t')
        .split('\n')
        .join(`${this.options().eol}${indent}`);
      this.current = applyEdits(this.current, [{ offset: existing.offset, length: existing.length, content: laid }]);
    } else if (this.current.trim() === '') {
      const whole = applyEdits('{}', modify('{}', [this.container, name], value, {}));
      this.current = `${applyEdits(whole, format(whole, undefined, this.options()))}${this.options().eol}`;
    } else {
      if (this.hasContainer() && !isObject(before[this.container])) {
        throw new McpConfigLayoutError(`${this.fileLabel}: "${this.container}" is not an object`);
      }
      const [insert] = modify(this.current, [this.container, name], value, {});
      if (insert === undefined) return;
      const inserted = applyEdits(this.current, [insert]);
      const laidOut = format(inserted, { offset: insert.offset, length: insert.content.length }, this.options());
      this.current = applyEdits(inserted, laidOut);
    }
    this.verify(before, name, value);
  }

  remove(name: string): void {
    const root = this.root();
    if (root === null) return;
    const valueNode = findNodeAtLocation(root, [this.container, name]);
    if (valueNode?.parent === undefined) return;
    const before = this.value();
    this.current = applyEdits(this.current, [this.removal(valueNode.parent)]);
    this.verify(before, name, undefined);
  }

  removeEmptyContainer(): void {
    const root = this.root();
    const node = root === null ? undefined : findNodeAtLocation(root, [this.container]);
    if (node?.parent === undefined || (node.children?.length ?? 0) > 0 || node.type !== 'object') return;
    this.current = applyEdits(this.current, [this.removal(node.parent)]);
    this.parse();
  }

  isEmpty(): boolean {
    return Object.keys(this.value()).length === 0;
  }

  /**
   * The text a property takes: from the end of the property before it (its comma included) when
   * it is the last one; its own lines up to the next property's line when another follows; from
   * the opening brace when it is the only one. This is exactly what adding it inserted.
   */
  private removal(property: Node): Edit {
    const siblings = property.parent?.children ?? [];
    const index = siblings.indexOf(property);
    const next = siblings[index + 1];
    const previous = siblings[index - 1];
    const end = property.offset + property.length;
    let from: number;
    let until = end;
    if (next !== undefined) {
      from = onlyIndentBefore(this.current, property.offset) ? lineStart(this.current, property.offset) : property.offset;
      until = onlyIndentBefore(this.current, next.offset) ? lineStart(this.current, next.offset) : next.offset;
    } else if (previous !== undefined) {
      from = previous.offset + previous.length;
    } else {
      from = (property.parent as Node).offset + 1;
    }
    return { offset: from, length: until - from, content: '' };
  }

  private indentOf(node: Node): string {
    const start = lineStart(this.current, node.offset);
    return /^[ \t]*/.exec(this.current.slice(start, node.offset))?.[0] ?? '';
  }

  private options(): FormattingOptions {
    const indented = /\n([ \t]+)["}\]]/.exec(this.current)?.[1] ?? '  ';
    const tabs = indented.startsWith('\t');
    return { insertSpaces: !tabs, tabSize: tabs ? 1 : Math.min(indented.length, 8), eol: lineEnding(this.current), keepLines: false };
  }

  private root(): Node | null {
    return this.current.trim() === '' ? null : (parseTree(this.current) ?? null);
  }

  protected value(): Record<string, unknown> {
    const root = this.root();
    return root === null ? {} : (getNodeValue(root) as Record<string, unknown>);
  }

  protected parse(): void {
    if (this.current.trim() === '') return;
    const errors: ParseError[] = [];
    const root = parseTree(this.current, errors, { allowTrailingComma: false, disallowComments: false });
    if (errors.length > 0 || root === undefined) {
      const first = errors[0];
      throw new McpConfigUnreadableError(`${this.fileLabel} is not valid JSON${first === undefined ? '' : ` (${printParseErrorCode(first.error)} at offset ${first.offset})`}; Loadout leaves it as it is`);
    }
    if (root.type !== 'object') throw new McpConfigUnreadableError(`${this.fileLabel} does not hold a JSON object; Loadout leaves it as it is`);
  }
}

function isObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
