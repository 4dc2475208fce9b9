import { createHash } from 'node:crypto';
import { redactSecrets } from '@loadout/kernel';
import type { McpEntryValue } from './McpConfigDocument.js';

/**
 * A server as Loadout hands it to a runtime: a command it starts (stdio) or an address it
 * connects to, with the plugin's root already expanded. Values are the owner's data, written as
 * they are; `${VAR}` references stay references.
 */
export type ServerSpec = (
  | {
      readonly transport: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd?: string;
    }
  | {
      /** `http`: Streamable HTTP; `sse`: the older HTTP+SSE transport; `ws`: WebSocket. */
      readonly transport: 'http' | 'sse' | 'ws';
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
    }
) & {
  /** Which of its tools a runtime offers (the server document's `tools`); absent: all of them. */
  readonly tools?: ToolLists;
};

/** A server's tool allow and deny lists, as its document gives them. */
export interface ToolLists {
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
}

/** Which of the lists a runtime can hold in a server's entry. */
export interface ToolListSupport {
  readonly allow: boolean;
  readonly deny: boolean;
}

/** The entry's tool-list keys, each holding its list when the server has one: `{ includeTools: [...] }`. */
export function toolListEntries(
  tools: ToolLists | undefined,
  keys: { readonly allow?: string; readonly deny?: string },
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (tools?.allow !== undefined && keys.allow !== undefined) out[keys.allow] = [...tools.allow];
  if (tools?.deny !== undefined && keys.deny !== undefined) out[keys.deny] = [...tools.deny];
  return out;
}

/** What a runtime's configuration holds for a server, or why it cannot hold it. */
export type RuntimeServerEntry =
  | {
      readonly value: McpEntryValue;
      /** What the runtime will do differently from the definition, e.g. ignore its working folder. */
      readonly notes: readonly string[];
    }
  | { readonly unsupported: string };

/** Names every MCP client accepts for a server (Claude Code and Codex check exactly this). */
const RUNTIME_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * The name a server takes in a runtime's configuration: its Loadout id when the clients accept it,
 * else the id with each run of other characters (a `.`) turned into `_` and six hex digits of a
 * hash of the id appended, so the same id always maps to the same name and never to another
 * server's id.
 *
 * @example
 * runtimeServerName('github') // 'github'
 * runtimeServerName('docs.search') // 'docs_search-<6 hex>'
 */
export function runtimeServerName(id: string): string {
  if (RUNTIME_NAME.test(id)) return id;
  return `${id.replace(/[^A-Za-z0-9_-]+/g, '_')}-${createHash('sha256').update(id).digest('hex').slice(0, 6)}`;
}

/**
 * The identity of an entry's value: sha256 of its JSON with keys in one order. An entry whose
 * hash differs from the one recorded when Loadout wrote it was edited since.
 */
export function serverEntryHash(value: unknown): string {
  return createHash('sha256')
    .update(`loadout-server-entry-v1\n${canonicalJson(value)}`)
    .digest('hex');
}

/** JSON with every object's keys in one order: two values that mean the same read the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `${NAME}` and `${NAME:-default}` references, as Claude Code expands them. */
const REFERENCE = /\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}/g;

/** A key that names a credential: `…TOKEN`, `…_API_KEY`, `Authorization`, `X-Api-Key` … */
const SECRET_KEY = /(token|secret|password|passwd|api_?key|apikey|access_?key|private_?key|auth|authorization|credentials?|bearer)$/i;

/**
 * Whether a value the owner wrote looks like a credential written out rather than a `${VAR}`
 * reference: a credential-shaped text (a provider token, a key, a JWT …) once the references are
 * taken out, or any literal of eight characters or more under a key that names a credential.
 */
export function looksLikeLiteralSecret(key: string, value: string): boolean {
  const literal = value.replace(REFERENCE, '');
  if (redactSecrets(literal) !== literal) return true;
  const bare = literal.replace(/^\s*(bearer|basic|token)\s+/i, '').trim();
  return SECRET_KEY.test(key.replace(/-/g, '_')) && bare.length >= 8;
}

/** The names of the settings of a server that hold a literal credential: `env.API_KEY`, `headers.Authorization`, `args[2]`. */
export function literalSecretsOf(spec: ServerSpec): string[] {
  const found: string[] = [];
  if (spec.transport === 'stdio') {
    for (const [key, value] of Object.entries(spec.env)) if (looksLikeLiteralSecret(key, value)) found.push(`env.${key}`);
    spec.args.forEach((arg, index) => {
      const literal = arg.replace(REFERENCE, '');
      if (redactSecrets(literal) !== literal) found.push(`args[${index}]`);
    });
  } else {
    for (const [key, value] of Object.entries(spec.headers)) if (looksLikeLiteralSecret(key, value)) found.push(`headers.${key}`);
    const literalUrl = spec.url.replace(REFERENCE, '');
    if (redactSecrets(literalUrl) !== literalUrl) found.push('url');
  }
  return found;
}

/** Whether the text holds a `${…}` reference (Claude Code expands them; Codex does not). */
export function hasReference(text: string): boolean {
  return text.includes('${');
}

/** The variable a value names when it is exactly one `${NAME}` reference, else null. */
export function wholeReference(text: string): string | null {
  return /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(text)?.[1] ?? null;
}

/**
 * A server's environment for a runtime that expands no `${VAR}` but passes a variable through by
 * name (Codex's `env_vars`, Goose's `env_keys`): the literal values, and the names whose value is
 * exactly `${THE_SAME_NAME}`; or the first key holding any other reference, which such a runtime
 * cannot express.
 */
export function passThroughEnv(
  env: Readonly<Record<string, string>>,
): { readonly literal: Record<string, string>; readonly passed: string[] } | { readonly refused: string } {
  const literal: Record<string, string> = {};
  const passed: string[] = [];
  for (const [key, text] of Object.entries(env)) {
    if (wholeReference(text) === key) passed.push(key);
    else if (!hasReference(text)) literal[key] = text;
    else return { refused: key };
  }
  return { literal, passed };
}

/** Why a runtime that passes variables through by name cannot hold `key`'s value. */
export function notPassedThrough(runtime: string, key: string): RuntimeServerEntry {
  return {
    unsupported: `${runtime} does not expand \${VAR}; env ${key} can only be passed through under its own name (${key}: "\${${key}}")`,
  };
}
