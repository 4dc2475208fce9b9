import { isDeepStrictEqual } from 'node:util';
import { applyEdits, findNodeAtLocation, type FormattingOptions, format, modify, type Node, parseTree } from 'jsonc-parser';
import { isJsonObject } from '@loadout/kernel';
import { McpConfigLayoutError, type McpConfigDocument, type McpEntryEdit, type McpEntryValue } from './McpConfigDocument.js';
import { formattingOptions, parseJsonConfig, removal } from './JsonMcpConfigDocument.js';

/**
 * What a name in a list of servers left off stands for when the list is read as entries: a list
 * holds names only, so every mark has this one value (and one hash).
 */
export const OFF_MARK: McpEntryValue = Object.freeze({ off: true });

/**
 * A runtime's list of server names it leaves off, inside a JSON file, read and edited as if each
 * name were an entry ({@link OFF_MARK}): Claude Code's `projects["<project>"].disabledMcpServers`
 * in `~/.claude.json`, Gemini CLI's `mcp.excluded` in a project's settings. A name set is appended
 * to the list (the list, and the objects above it, made when absent); a name removed takes only
 * its own element. Edits go through jsonc-parser's `modify`, which touches only the list's text,
 * and each batch is checked by parsing again: the list holds exactly the names asked for, and the
 * rest of the file parses to what it did before.
 */
export class JsonOffListDocument implements McpConfigDocument {
  readonly format = 'json' as const;
  private current: string;
  private parsed: Record<string, unknown> = {};

  /** `text` null: the file does not exist yet. `list`: the keys leading to the list, from the top. */
  constructor(
    text: string | null,
    private readonly list: readonly string[],
    private readonly fileLabel: string,
    private readonly trailingCommas = false,
  ) {
    this.current = text ?? '';
    this.parse();
  }

  servers(): ReadonlyMap<string, unknown> {
    const names = this.names('read');
    return new Map((names ?? []).flatMap((name) => (typeof name === 'string' ? [[name, OFF_MARK] as const] : [])));
  }

  hasContainer(): boolean {
    return valueAt(this.parsed, this.list) !== undefined;
  }

  applyEdits(edits: readonly McpEntryEdit[]): void {
    if (edits.length === 0) return;
    const before = this.parsed;
    this.names();
    const wanted = new Set(this.servers().keys());
    const options = formattingOptions(this.current);
    for (const { name, value } of edits) {
      if (value !== undefined && !isDeepStrictEqual({ ...value }, { ...OFF_MARK })) {
        throw new McpConfigLayoutError(`${this.fileLabel}: "${this.list.join('.')}" holds server names only`);
      }
      if (value === undefined) {
        wanted.delete(name);
        this.removeName(name);
      } else if (!wanted.has(name)) {
        wanted.add(name);
        this.appendName(name, options);
      }
    }
    this.parse();
    this.check(before, wanted, edits);
  }

  set(name: string, value: McpEntryValue): void {
    this.applyEdits([{ name, value }]);
  }

  remove(name: string): void {
    this.applyEdits([{ name, value: undefined }]);
  }

  /**
   * Takes away the list once Loadout took its last name from it, and each object above it left
   * empty by that (Loadout made them to hold it), never the file's top.
   */
  removeEmptyContainer(): void {
    const names = this.names('read');
    if (names === null || names.length > 0) return;
    for (let depth = this.list.length; depth > 0; depth -= 1) {
      const at = this.list.slice(0, depth);
      const value = valueAt(this.parsed, at);
      const empty = Array.isArray(value) ? value.length === 0 : isJsonObject(value) && Object.keys(value).length === 0;
      if (!empty) break;
      this.current = this.modified(at, undefined, formattingOptions(this.current));
      this.parse();
    }
  }

  isEmpty(): boolean {
    return Object.keys(this.parsed).length === 0;
  }

  text(): string {
    return this.current;
  }

  /**
   * The list as it stands: null when absent. Something else in its place holds no names when
   * read, and is refused when it is to be edited (the runtime's own reading of it is unknown).
   */
  private names(use: 'read' | 'edit' = 'edit'): unknown[] | null {
    const value = valueAt(this.parsed, this.list);
    if (value === undefined) return null;
    if (Array.isArray(value)) return value;
    if (use === 'read') return null;
    throw new McpConfigLayoutError(`${this.fileLabel}: "${this.list.join('.')}" is not a list of names; Loadout leaves it as it is`);
  }

  private appendName(name: string, options: FormattingOptions): void {
    if (this.current.trim() === '') this.current = `{}${options.eol}`;
    this.parse();
    const existing = this.names();
    this.current =
      existing === null
        ? this.modified([...this.list], [name], options)
        : this.modified([...this.list, existing.length], name, options, true);
    this.parse();
  }

  /** Takes every element naming `name` out of the list, each with only its own text (as the entries of a container are). */
  private removeName(name: string): void {
    for (;;) {
      const index = (this.names() ?? []).indexOf(name);
      if (index === -1) return;
      const element = findNodeAtLocation(parseTree(this.current) as Node, [...this.list, index]) as Node;
      this.current = applyEdits(this.current, [removal(this.current, element)]);
      this.parse();
    }
  }

  /**
   * The text with one value set (or taken away) by jsonc-parser's `modify`, the inserted text alone
   * laid out in the file's style, the rest as it was; a path it cannot follow is the file's layout
   * refusing the edit.
   */
  private modified(at: readonly (string | number)[], value: unknown, options: FormattingOptions, isArrayInsertion = false): string {
    try {
      const [edit] = modify(this.current, [...at], value, { isArrayInsertion });
      if (edit === undefined) return this.current;
      const changed = applyEdits(this.current, [edit]);
      // A name added to a list on one line stays on it; elsewhere it is laid out as the lines around it.
      const oneLine = isArrayInsertion && !/[\r\n]/.test(this.listText());
      if (value === undefined || oneLine) return changed;
      return applyEdits(changed, format(changed, { offset: edit.offset, length: edit.content.length }, options));
    } catch (error) {
      throw new McpConfigLayoutError(
        `${this.fileLabel}: "${this.list.join('.')}" cannot be reached (${(error as Error).message}); Loadout leaves the file as it is`,
      );
    }
  }

  /** The list's own text. */
  private listText(): string {
    const node = findNodeAtLocation(parseTree(this.current) as Node, [...this.list]);
    return node === undefined ? '' : this.current.slice(node.offset, node.offset + node.length);
  }

  private parse(): void {
    this.parsed = parseJsonConfig(this.current, this.fileLabel, this.trailingCommas);
  }

  /** The list holds the names wanted, in any order, and nothing else in the file changed (objects made on the way to it aside). */
  private check(before: Record<string, unknown>, wanted: ReadonlySet<string>, edits: readonly McpEntryEdit[]): void {
    const names = (this.names() ?? []).filter((name): name is string => typeof name === 'string');
    const others = (value: Record<string, unknown>): unknown => withoutPath(value, this.list);
    if (
      names.length !== new Set(names).size ||
      !isDeepStrictEqual(new Set(names), wanted) ||
      !isDeepStrictEqual(others(this.parsed), others(before))
    ) {
      throw new McpConfigLayoutError(
        `editing ${edits.map((edit) => `"${edit.name}"`).join(', ')} in "${this.list.join('.')}" would change more than those names; the file is left as it is`,
      );
    }
  }
}

function valueAt(root: unknown, keys: readonly string[]): unknown {
  let value = root;
  for (const key of keys) {
    if (!isJsonObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The value with the list (and the objects above it left empty without it) taken out, for comparing the rest. */
function withoutPath(root: Record<string, unknown>, keys: readonly string[]): unknown {
  const [first, ...rest] = keys;
  if (first === undefined || !Object.hasOwn(root, first)) return root;
  const { [first]: inner, ...others } = root;
  if (rest.length === 0) return others;
  if (!isJsonObject(inner)) return root;
  const reduced = withoutPath(inner as Record<string, unknown>, rest) as Record<string, unknown>;
  return Object.keys(reduced).length === 0 ? others : { ...others, [first]: reduced };
}
