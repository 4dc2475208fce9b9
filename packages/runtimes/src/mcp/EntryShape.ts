import type { McpEntryValue } from './McpConfigDocument.js';
import { type RuntimeServerEntry, type ServerSpec, toolListEntries } from './ServerSpec.js';

/**
 * How a runtime spells a `${NAME}` reference in its configuration:
 * - `dollar-brace`: it expands `${NAME}` itself, so values are written as they are
 * - `env-prefixed`: it expands `${env:NAME}` (Cursor, Windsurf)
 * - `opencode`: it expands `{env:NAME}` (OpenCode)
 * - `none`: it expands no reference (Auggie), so a value holding one cannot be written as meant
 * A `${NAME:-default}` is kept only by a runtime whose `defaults` says it expands one.
 */
export type ReferenceSyntax = 'dollar-brace' | 'env-prefixed' | 'opencode' | 'none';

/** How a stdio entry is laid out in one runtime's file. */
export interface StdioShape {
  /** The `type` value the entry carries, if the runtime writes one (`stdio`, `local`). */
  readonly type?: string;
  /** True: `command` is a list holding the command and its arguments (OpenCode). */
  readonly commandWithArgs?: boolean;
  /** The key of the environment table: `env` or `environment`. */
  readonly envKey: string;
  /** The key of the working folder, or null when the runtime has none (the entry is written without it, and said so). */
  readonly cwdKey: string | null;
  /** Keys every entry of this runtime carries as its own CLI writes them, e.g. Copilot's `tools: ["*"]`. */
  readonly extra?: McpEntryValue;
}

/** How a remote entry is laid out: its `type` value and the key of its address. */
export interface RemoteShape {
  readonly type?: string;
  readonly urlKey: string;
  readonly extra?: McpEntryValue;
}

/**
 * The server entries one runtime holds, as data: per transport the layout it writes, or the
 * reason it cannot hold that transport; how it spells references. Used by {@link shapedEntry}.
 */
export interface EntryShape {
  /** The runtime as people name it, for reasons: `Gemini CLI`. */
  readonly label: string;
  readonly stdio: StdioShape;
  readonly http: RemoteShape | string;
  readonly sse: RemoteShape | string;
  readonly ws: RemoteShape | string;
  readonly references: ReferenceSyntax;
  /** Whether the runtime expands `${NAME:-default}`. */
  readonly defaults: boolean;
  /**
   * The entry keys holding a server's tool lists (Gemini CLI's `includeTools` and `excludeTools`,
   * Copilot CLI's `tools`); a list the runtime has no key for is not written, and reported.
   */
  readonly tools?: { readonly allow?: string; readonly deny?: string };
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}/g;

/**
 * A value with its references spelled the runtime's way, or null when it holds one the runtime
 * cannot expand (a default where defaults are not expanded).
 */
function spelled(text: string, shape: EntryShape): string | null {
  let refused = false;
  const result = text.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
    if ((fallback !== undefined && !shape.defaults) || shape.references === 'none') refused = true;
    if (shape.references === 'dollar-brace' || shape.references === 'none') return whole;
    if (fallback !== undefined) refused = true;
    return shape.references === 'env-prefixed' ? `\${env:${name}}` : `{env:${name}}`;
  });
  return refused ? null : result;
}

/** Every value of a table spelled the runtime's way, or the key of the first that cannot be. */
function spelledTable(table: Readonly<Record<string, string>>, shape: EntryShape): Record<string, string> | { refused: string } {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(table)) {
    const text = spelled(value, shape);
    if (text === null) return { refused: key };
    out[key] = text;
  }
  return out;
}

const unexpandable = (shape: EntryShape, where: string): RuntimeServerEntry => ({
  unsupported:
    shape.references === 'none'
      ? `${shape.label} expands no \${NAME} reference (in ${where}): it would pass the text as it is; a stdio server's variable named as a secret reaches it through loadout mcp run`
      : `${shape.label} does not expand \${NAME:-default} (in ${where}); write a plain \${NAME} reference`,
});

/**
 * The entry a runtime holds for a server, laid out as its shape says: stdio with the command,
 * arguments, environment and working folder under the runtime's keys; a remote server under its
 * transport's type and address key with its headers. References are spelled the runtime's way.
 *
 * @example
 * shapedEntry(GEMINI_SHAPE, { transport: 'http', url: 'https://x/mcp', headers: {} })
 * // { value: { httpUrl: 'https://x/mcp' }, notes: [] }
 */
export function shapedEntry(shape: EntryShape, spec: ServerSpec): RuntimeServerEntry {
  if (spec.transport === 'stdio') {
    const command = spelled(spec.command, shape);
    if (command === null) return unexpandable(shape, 'the command');
    const args: string[] = [];
    for (const arg of spec.args) {
      const text = spelled(arg, shape);
      if (text === null) return unexpandable(shape, 'the arguments');
      args.push(text);
    }
    const env = spelledTable(spec.env, shape);
    if ('refused' in env) return unexpandable(shape, `env ${String(env.refused)}`);
    const { stdio } = shape;
    const notes: string[] = [];
    const value: Record<string, unknown> = { ...(stdio.type === undefined ? {} : { type: stdio.type }) };
    if (stdio.commandWithArgs === true) value.command = [command, ...args];
    else Object.assign(value, { command, args });
    if (Object.keys(env).length > 0) value[stdio.envKey] = env;
    if (spec.cwd !== undefined) {
      const cwd = spelled(spec.cwd, shape);
      if (cwd === null) return unexpandable(shape, 'the working folder');
      if (stdio.cwdKey === null)
        notes.push(`${shape.label} has no working-folder setting for a stdio server; it starts it in the folder ${shape.label} works in`);
      else value[stdio.cwdKey] = cwd;
    }
    return { value: { ...value, ...stdio.extra, ...toolListEntries(spec.tools, shape.tools ?? {}) }, notes };
  }
  const remote = shape[spec.transport];
  if (typeof remote === 'string') return { unsupported: remote };
  const url = spelled(spec.url, shape);
  if (url === null) return unexpandable(shape, 'the URL');
  const headers = spelledTable(spec.headers, shape);
  if ('refused' in headers) return unexpandable(shape, `header ${String(headers.refused)}`);
  return {
    value: {
      ...(remote.type === undefined ? {} : { type: remote.type }),
      [remote.urlKey]: url,
      ...(Object.keys(headers).length === 0 ? {} : { headers }),
      ...remote.extra,
      ...toolListEntries(spec.tools, shape.tools ?? {}),
    },
    notes: [],
  };
}
