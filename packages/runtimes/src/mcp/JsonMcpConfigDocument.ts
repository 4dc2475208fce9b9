import {
  applyEdits,
  type Edit,
  findNodeAtLocation,
  format,
  type FormattingOptions,
  modify,
  type Node,
  type ParseError,
  parse as parseJsonc,
  parseTree,
  printParseErrorCode,
} from 'jsonc-parser';
import { isJsonObject } from '@loadout/kernel';
import {
  EditedMcpConfig,
  lineEnding,
  lineStart,
  McpConfigLayoutError,
  McpConfigUnreadableError,
  type McpEntryEdit,
  onlyIndentBefore,
} from './McpConfigDocument.js';

/**
 * A JSON configuration file (Claude Code's `~/.claude.json`, a project's `.mcp.json`) edited with
 * jsonc-parser: positions come from its syntax tree, an added entry is inserted by its `modify`
 * and laid out by its formatter over the inserted text only, in the file's own indentation and
 * line ending; a replaced value is swapped in place; a removed entry takes only its own text.
 * `~/.claude.json` runs to megabytes (Claude Code keeps every project's history in it), so the
 * whole file is parsed for positions once per batch and the entries are edited inside the text of
 * the container object alone.
 */
export class JsonMcpConfigDocument extends EditedMcpConfig {
  readonly format = 'json' as const;
  private parsed: Record<string, unknown> = {};

  /**
   * `text` null: the file does not exist yet. `trailingCommas`: the runtime reads the file as JSONC
   * that allows a comma after the last member (OpenCode, VS Code), so Loadout accepts one too and
   * leaves it where it stands; elsewhere a trailing comma is a file the runtime itself refuses.
   */
  constructor(
    text: string | null,
    container: string,
    fileLabel: string,
    private readonly trailingCommas = false,
  ) {
    super(text, container, fileLabel);
    this.parse();
  }

  removeEmptyContainer(): void {
    const root = this.tree();
    const node = root === null ? undefined : findNodeAtLocation(root, [this.container]);
    if (node?.parent === undefined || node.type !== 'object' || (node.children?.length ?? 0) > 0) return;
    this.current = applyEdits(this.current, [removal(this.current, node.parent)]);
    this.parse();
  }

  isEmpty(): boolean {
    return Object.keys(this.value()).length === 0;
  }

  protected edit(edits: readonly McpEntryEdit[]): void {
    const options = formattingOptions(this.current);
    let remaining = edits;
    if (!this.hasContainer()) {
      // The container is made with the first entry set in it; a batch that only removes has nothing to do.
      const first = edits.findIndex((edit) => edit.value !== undefined);
      if (first === -1) return;
      const { name, value } = edits[first] as McpEntryEdit;
      if (this.current.trim() === '') {
        const whole = applyEdits('{}', modify('{}', [this.container, name], value, {}));
        this.current = `${applyEdits(whole, format(whole, undefined, options))}${options.eol}`;
      } else {
        this.current = insert(this.current, [this.container, name], value, options);
      }
      remaining = edits.filter((_, index) => index !== first);
    } else if (!isJsonObject(this.value()[this.container])) {
      throw new McpConfigLayoutError(`${this.fileLabel}: "${this.container}" is not an object`);
    }
    if (remaining.length === 0) return;
    const node = findNodeAtLocation(this.tree() as Node, [this.container]) as Node;
    const lead = /^[ \t]*/.exec(this.current.slice(lineStart(this.current, node.offset), node.offset))?.[0] ?? '';
    let object = this.current.slice(node.offset, node.offset + node.length);
    for (const { name, value } of remaining) object = editEntry(object, name, value, options, lead);
    this.current = `${this.current.slice(0, node.offset)}${object}${this.current.slice(node.offset + node.length)}`;
  }

  protected value(): Record<string, unknown> {
    return this.parsed;
  }

  protected parse(): void {
    this.parsed = parseJsonConfig(this.current, this.fileLabel, this.trailingCommas);
  }

  /** The syntax tree of the whole text, for positions. */
  private tree(): Node | null {
    return this.current.trim() === '' ? null : (parseTree(this.current) ?? null);
  }
}

/**
 * One entry's edit inside the text of the container object alone (`{ … }`): set where it stands,
 * added after the last entry, or removed. `lead` is the indentation of the object's first line in
 * the file, so added text is indented as it will stand there.
 */
function editEntry(object: string, name: string, value: McpEntryEdit['value'], options: FormattingOptions, lead: string): string {
  const root = parseTree(object) as Node;
  const existing = findNodeAtLocation(root, [name]);
  if (value === undefined) return existing?.parent === undefined ? object : applyEdits(object, [removal(object, existing.parent)]);
  if (existing !== undefined) {
    const indent = indentOf(object, (existing.parent ?? existing).offset, lead);
    const laid = JSON.stringify(value, null, options.insertSpaces === false ? '\t' : ' '.repeat(options.tabSize ?? 2))
      .split('\n')
      .join(`${options.eol}${indent}`);
    return applyEdits(object, [{ offset: existing.offset, length: existing.length, content: laid }]);
  }
  // Laid out as if the object stood where it does in the file: its first line carries the indentation.
  return insert(`${lead}${object}`, [name], value, options).slice(lead.length);
}

/** Inserts a property by jsonc-parser's `modify`, laying out only the inserted text. */
function insert(text: string, path: readonly string[], value: unknown, options: FormattingOptions): string {
  const [edit] = modify(text, [...path], value, {});
  if (edit === undefined) return text;
  const inserted = applyEdits(text, [edit]);
  return applyEdits(inserted, format(inserted, { offset: edit.offset, length: edit.content.length }, options));
}

/**
 * The text a property (or an element of a list) takes: from the end of the property before it (its comma included) when it
 * is the last one; its own lines up to the next property's line when another follows; from the
 * opening brace when it is the only one. This is exactly what adding it inserted.
 */
export function removal(text: string, property: Node): Edit {
  const siblings = property.parent?.children ?? [];
  const index = siblings.indexOf(property);
  const next = siblings[index + 1];
  const previous = siblings[index - 1];
  const end = property.offset + property.length;
  let from: number;
  let until = end;
  if (next !== undefined) {
    const ownLines = onlyIndentBefore(text, property.offset) && onlyIndentBefore(text, next.offset);
    from = ownLines ? lineStart(text, property.offset) : property.offset;
    until = ownLines ? lineStart(text, next.offset) : next.offset;
  } else if (previous !== undefined) {
    from = previous.offset + previous.length;
  } else {
    from = (property.parent as Node).offset + 1;
  }
  return { offset: from, length: until - from, content: '' };
}

/** The indentation of the line holding `offset` (on the object's first line, the file line's). */
function indentOf(text: string, offset: number, lead: string): string {
  const start = lineStart(text, offset);
  const line = start === 0 ? `${lead}${text.slice(0, offset)}` : text.slice(start, offset);
  return /^[ \t]*/.exec(line)?.[0] ?? '';
}

/**
 * A JSON configuration file's text as an object (`{}` for blank text): read as JSON, else as
 * JSONC (comments, and a trailing comma when the runtime allows one).
 *
 * @throws McpConfigUnreadableError text that is neither, or that does not hold an object
 */
export function parseJsonConfig(text: string, label: string, trailingCommas: boolean): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const errors: ParseError[] = [];
    value = parseJsonc(text, errors, { allowTrailingComma: trailingCommas, disallowComments: false });
    const first = errors[0];
    if (first !== undefined) {
      throw new McpConfigUnreadableError(
        `${label} is not valid JSON (${printParseErrorCode(first.error)} at offset ${first.offset}); Loadout leaves it as it is`,
      );
    }
  }
  if (!isJsonObject(value)) throw new McpConfigUnreadableError(`${label} does not hold a JSON object; Loadout leaves it as it is`);
  return value as Record<string, unknown>;
}

/** The file's own indentation (two spaces when it has none yet) and line ending. */
export function formattingOptions(text: string): FormattingOptions {
  const indented = /\n([ \t]+)["}\]]/.exec(text)?.[1] ?? '  ';
  const tabs = indented.startsWith('\t');
  return { insertSpaces: !tabs, tabSize: tabs ? 1 : Math.min(indented.length, 8), eol: lineEnding(text), keepLines: false };
}
