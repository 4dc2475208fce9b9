import { isDeepStrictEqual } from 'node:util';
import { ConflictError } from '@loadout/files';

/** How a runtime's MCP configuration file is written: Claude Code's JSON, Codex's TOML or Goose's YAML. */
export type McpConfigFormat = 'json' | 'toml' | 'yaml';

/** A server entry as a configuration file holds it: plain data (strings, lists, tables). */
export type McpEntryValue = Readonly<Record<string, unknown>>;

/** One edit of a server entry: a value to hold, or undefined to take the entry away. */
export interface McpEntryEdit {
  readonly name: string;
  readonly value: McpEntryValue | undefined;
}

/**
 * One runtime configuration file's text, edited server entry by server entry. Every byte outside
 * the entries it touches stays as it was: other keys, other entries, comments, line endings and
 * layout. Each batch of edits is checked by parsing the result again: the entries hold exactly the
 * values given and everything else parses to what it did before, or the edit is refused.
 */
export interface McpConfigDocument {
  readonly format: McpConfigFormat;
  /** The servers under the file's container (`mcpServers`, `mcp_servers`), by name. */
  servers(): ReadonlyMap<string, unknown>;
  /** Whether the container key is present at all. */
  hasContainer(): boolean;
  /** Makes the edits in order (an entry set where it stands, or added; an entry removed), checked once. */
  applyEdits(edits: readonly McpEntryEdit[]): void;
  /** Adds the entry, or replaces the value of the entry of that name where it stands. */
  set(name: string, value: McpEntryValue): void;
  /** Removes the entry of that name (nothing when absent). */
  remove(name: string): void;
  /** Removes the container when it is empty (Loadout made it and took its last entry away). */
  removeEmptyContainer(): void;
  /** Whether nothing is left but an empty shell: `{}` or blank text. */
  isEmpty(): boolean;
  text(): string;
}

/**
 * What both editors share: the text being edited, the servers read from its parsed value, and the
 * check that runs after every batch of edits. A subclass parses its format and makes one edit.
 */
export abstract class EditedMcpConfig implements McpConfigDocument {
  abstract readonly format: McpConfigFormat;
  protected current: string;

  /** `text` null: the file does not exist yet. */
  constructor(
    text: string | null,
    protected readonly container: string,
    protected readonly fileLabel: string,
  ) {
    this.current = text ?? '';
  }

  servers(): ReadonlyMap<string, unknown> {
    const servers = this.value()[this.container];
    return new Map(servers !== null && typeof servers === 'object' && !Array.isArray(servers) ? Object.entries(servers) : []);
  }

  hasContainer(): boolean {
    return Object.hasOwn(this.value(), this.container);
  }

  text(): string {
    return this.current;
  }

  applyEdits(edits: readonly McpEntryEdit[]): void {
    if (edits.length === 0) return;
    const before = this.value();
    this.edit(edits);
    this.parse();
    checkEdits(before, this.value(), this.container, edits);
  }

  set(name: string, value: McpEntryValue): void {
    this.applyEdits([{ name, value }]);
  }

  remove(name: string): void {
    this.applyEdits([{ name, value: undefined }]);
  }

  abstract removeEmptyContainer(): void;
  abstract isEmpty(): boolean;

  /** The whole file as plain data. */
  protected abstract value(): Record<string, unknown>;
  /** Parses the current text, refusing text that is not of the format (`McpConfigUnreadableError`). */
  protected abstract parse(): void;
  /** Makes the edits to the text, in order; the base parses and checks the result. */
  protected abstract edit(edits: readonly McpEntryEdit[]): void;
}

/** A configuration file that does not parse: Loadout leaves it, and every entry in it, alone. */
export class McpConfigUnreadableError extends ConflictError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MCP_CONFIG_UNREADABLE', message, options);
  }
}

/**
 * A configuration file holding bytes that are not UTF-8. Editing it as text would write each of
 * them back as U+FFFD; Loadout edits text only, so it leaves the whole file, and every entry in
 * it, alone.
 */
export class McpConfigNotUtf8Error extends ConflictError {
  constructor(label: string, options?: { cause?: unknown }) {
    super(
      'MCP_CONFIG_NOT_UTF8',
      `${label} holds bytes that are not UTF-8 text; Loadout edits only UTF-8 text, so it leaves the file as it is`,
      options,
    );
  }
}

/** An edit the file's layout does not allow without rewriting the user's own text. */
export class McpConfigLayoutError extends ConflictError {
  constructor(message: string) {
    super('MCP_CONFIG_LAYOUT_UNSUPPORTED', message);
  }
}

/** The line ending a text uses: CRLF when its first line break is one, else LF. */
export function lineEnding(text: string): '\n' | '\r\n' {
  const first = text.indexOf('\n');
  return first > 0 && text[first - 1] === '\r' ? '\r\n' : '\n';
}

/** The offset where the line holding `offset` starts. */
export function lineStart(text: string, offset: number): number {
  const before = text.lastIndexOf('\n', offset - 1);
  return before === -1 ? 0 : before + 1;
}

/** The offset just after the line break ending the line holding `offset` (the text's end when there is none). */
export function lineEnd(text: string, offset: number): number {
  const next = text.indexOf('\n', offset);
  return next === -1 ? text.length : next + 1;
}

/** Whether only spaces and tabs stand between the start of `offset`'s line and `offset`. */
export function onlyIndentBefore(text: string, offset: number): boolean {
  return /^[ \t]*$/.test(text.slice(lineStart(text, offset), offset));
}

/**
 * Checks edits by their result: `after` parses to `before` with only the edited entries changed,
 * to their values (absent for a removal). Anything else means the editor would have changed the
 * user's data. Key order does not count.
 */
export function checkEdits(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
  container: string,
  edits: readonly McpEntryEdit[],
): void {
  const expectedServers: Record<string, unknown> = { ...((before[container] as Record<string, unknown> | undefined) ?? {}) };
  for (const { name, value } of edits) {
    if (value === undefined) delete expectedServers[name];
    else expectedServers[name] = value;
  }
  const { [container]: afterServers, ...afterRest } = after;
  const { [container]: _beforeServers, ...beforeRest } = before;
  if (!isDeepStrictEqual(plain(afterServers ?? {}), plain(expectedServers)) || !isDeepStrictEqual(afterRest, beforeRest)) {
    throw new McpConfigLayoutError(
      `editing ${edits.map((edit) => `"${edit.name}"`).join(', ')} would change more than those entries; the file is left as it is`,
    );
  }
}

/** The entries as plain data: a value given in code may carry read-only arrays and objects of other prototypes. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}
