import type { Diagnostic } from './Diagnostic.js';

/**
 * A document a root declares inside another file (a plugin manifest's MCP servers) rather than
 * as a file of its own. The kind reads `content` exactly as it would read the parsed file.
 */
export interface InlineDocument {
  /** The entry name the kind sees, e.g. `github.json` for the server whose id is `github`. */
  readonly name: string;
  /** Absolute path of the file that declares it, for records and messages. */
  readonly path: string;
  readonly content: unknown;
}

/** One place a kind's entries come from in a root with a {@link RootLayout}. */
export type RootLayoutSource =
  /** Every entry of a folder, relative to the root with `/` separators (`skills`, `extra/skills`). */
  | { readonly folder: string }
  /** One entry, relative to the root (`skills/review`); `.` is the root itself (a one-skill plugin). */
  | { readonly entry: string }
  | { readonly document: InlineDocument };

/**
 * Where a root's documents are when a plugin's manifest says so, instead of one folder per kind
 * at the top of the root. Worked out by the plugins package when a session opens; the loader
 * applies the same link and containment rules to every source as to a kind folder.
 *
 * @example
 * // A Claude Code plugin with an extra skills folder and one server from its `.mcp.json`:
 * { kinds: { skills: [{ folder: 'skills' }, { folder: 'more-skills' }],
 *            servers: [{ folder: 'servers' }, { document: { name: 'docs.json', path: '/…/.mcp.json', content: {…} } }] },
 *   onlyListed: false, diagnostics: [] }
 */
export interface RootLayout {
  /**
   * Per kind folder name (`skills`, `servers` …), where that kind's entries are. A kind not named
   * here is read from `<dir>/<folder>` as in any root, unless `onlyListed` is set.
   */
  readonly kinds: Readonly<Record<string, readonly RootLayoutSource[]>>;
  /** When true, a kind not named in `kinds` is not read at all (a plugin that was rejected, or whose definition lists everything). */
  readonly onlyListed: boolean;
  /** What reading the plugin's manifest found (fields ignored, parts not loaded …), reported with every session. */
  readonly diagnostics: readonly Diagnostic[];
}
