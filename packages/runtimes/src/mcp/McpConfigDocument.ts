import { isDeepStrictEqual } from 'node:util';
import { ConflictError } from '@loadout/kernel';

/** How a runtime's MCP configuration file is written: Claude Code's JSON or Codex's TOML. */
export type McpConfigFormat = 'json' | 'toml';

/** A server entry as a configuration file holds it: plain data (strings, lists, tables). */
export type McpEntryValue = Readonly<Record<string, unknown>>;

/**
 * One runtime configuration file's text, edited server entry by server entry. Every byte outside
 * the entries it touches stays as it was: other keys, other entries, comments, line endings and
 * layout. Each edit is checked by parsing the result again: the entry holds exactly the value
 * given and everything else parses to what it did before, or the edit is refused.
 */
export interface McpConfigDocument {
  readonly format: McpConfigFormat;
  /** The servers under the file's container (`mcpServers`, `mcp_servers`), by name. */
  servers(): ReadonlyMap<string, unknown>;
  /** Whether the container key is present at all. */
  hasContainer(): boolean;
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
 * check that runs after every edit. A subclass parses its format and makes the edits.
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

  abstract set(name: string, value: McpEntryValue): void;
  abstract remove(name: string): void;
  abstract removeEmptyContainer(): void;
  abstract isEmpty(): boolean;

  /** The whole file as plain data. */
  protected abstract value(): Record<string, unknown>;
  /** Parses the current text, refusing text that is not of the format (`McpConfigUnreadableError`). */
  protected abstract parse(): void;

  /** Parses the edited text and checks that only `name` changed, to `value` (absent: removed). */
  protected verify(before: Record<string, unknown>, name: string, value: unknown): void {
    this.parse();
    checkEdit(before, this.value(), this.container, name, value);
  }
}

/** A configuration file that does not parse: Loadout leaves it, and every entry in it, alone. */
export class McpConfigUnreadableError extends ConflictError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MCP_CONFIG_UNREADABLE', message, options);
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
 * Checks an edit by its result: `after` parses to `before` with only `name` changed to `value`
 * (absent for a removal). Anything else means the editor would have changed the user's data.
 */
export function checkEdit(before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>, container: string, name: string, value: unknown): void {
  const expectedServers: Record<string, unknown> = { ...((before[container] as Record<string, unknown> | undefined) ?? {}) };
  if (value === undefined) delete expectedServers[name];
  else expectedServers[name] = value;
  const { [container]: afterServers, ...afterRest } = after;
  const { [container]: _beforeServers, ...beforeRest } = before;
  const serversMatch = isDeepStrictEqual(normalize((afterServers as Record<string, unknown> | undefined) ?? {}), normalize(expectedServers));
  if (!serversMatch || !isDeepStrictEqual(normalize(afterRest), normalize(beforeRest))) {
    throw new McpConfigLayoutError(`editing server "${name}" would change more than that entry; the file is left as it is`);
  }
}

/** Plain data with keys in one order, so two parses compare equal whatever the key order. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, normalize((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
