import type { RuntimeEnvironment } from '../RuntimeEnvironment.js';
import type { CopiedAgentNames, WriteTarget } from '../RuntimeAdapter.js';

/** The kinds of document Loadout writes into runtimes besides skills and servers. */
export type DocumentKind = 'agent' | 'command' | 'hook';

/** The agent and command documents: one file each in a runtime's folder. */
export type FileDocumentKind = Exclude<DocumentKind, 'hook'>;

/** One Loadout document as an adapter is asked to translate it. */
export interface DocumentToTranslate {
  /** The Loadout id: the command's file stem, the agent's frontmatter name. */
  readonly id: string;
  /** The plugin it comes from, or null for the owner's or project's own. */
  readonly plugin: string | null;
  /** The document's text as written. */
  readonly text: string;
  readonly description: string;
  /** How the installed client lets a copy of a plugin's agent be named (absent: `plugin-prefixed`). */
  readonly copiedAgentNames?: CopiedAgentNames;
}

/**
 * A document as a runtime keeps it: the file inside the runtime's folder (forward slashes, one
 * level of folder at most) and its bytes; or why the runtime gets none (`skip`), never dropped in
 * silence.
 */
export type TranslatedDocument =
  | {
      readonly file: string;
      readonly text: string;
      /** The name the runtime lists it by, when not its path in the folder (`kit/ship.md` → `kit:ship`). */
      readonly listedAs?: string;
    }
  | { readonly skip: string };

/** Where one runtime keeps one kind of file document, and how a Loadout document becomes one. */
export interface DocumentFolders {
  /** The folder for the owner's documents and the project's, absolute; null where the runtime has none. */
  folders(project: string | null, env: RuntimeEnvironment): Readonly<Record<WriteTarget, string | null>>;
  /** The Loadout document as the runtime keeps it. Pure: the data of the translation is in the adapter. */
  translate(document: DocumentToTranslate): TranslatedDocument;
  /** The dated source that says the runtime reads them there. */
  readonly source: string;
}

/** Where one runtime keeps hooks: a JSON file whose `hooks` object lists handler groups by event. */
export interface HookSettings {
  /** The file for the owner's hooks and the project's, absolute; null where the runtime has none. */
  files(project: string | null, env: RuntimeEnvironment): Readonly<Record<WriteTarget, string | null>>;
  /**
   * Loadout's event names (Claude Code's, as hooks files are written) to the runtime's own. An
   * event missing here has no equivalent there: its hook is skipped with the reason.
   */
  readonly events: Readonly<Record<string, string>>;
  /** The names a plugin's command line calls its own folder by, replaced with the folder written out (the runtime sets them only for its own plugins). */
  readonly pluginRootNames: readonly string[];
  /** Whether a group's `matcher` is a regular expression over the tool's name (Claude Code's); else Loadout's own hooks are written without one. */
  readonly regexMatchers?: boolean;
  /** The dated source that says the runtime reads them there. */
  readonly source: string;
}

/**
 * What one runtime reads besides skills and servers: for each kind, where and how, or why Loadout
 * writes none of it there (a reason shown with every document skipped).
 */
export interface RuntimeDocumentSupport {
  /** The date the places were checked against the runtime's documentation or the real client. */
  readonly verifiedOn: string;
  readonly agent: DocumentFolders | string;
  readonly command: DocumentFolders | string;
  readonly hook: HookSettings | string;
}
