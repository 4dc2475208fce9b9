import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Diagnostic } from '@loadout/kernel';
import { isInside, trackedFs } from '@loadout/files';
import type { ChangeAction, ChangeReport } from '../RuntimePlan.js';
import type { CopiedAgentNames, WriteTarget } from '../RuntimeAdapter.js';
import type { RuntimeEnvironment } from '../RuntimeEnvironment.js';
import type { ManifestSource } from '../RuntimeManifest.js';
import { canonicalJson } from '../mcp/ServerSpec.js';
import { rootOutsideAnchor } from '../rootOutsideAnchor.js';
import { readConfigText } from '../mcp/readConfigText.js';
import type { DocumentManifest, DocumentManifestEntry } from './DocumentManifest.js';
import type { DocumentFolders, DocumentKind, FileDocumentKind, HookSettings, RuntimeDocumentSupport } from './RuntimeDocumentSupport.js';

/** One Loadout agent, command or hook a runtime's folders should hold, read once per plan. */
export interface SourceDocument {
  readonly kind: DocumentKind;
  readonly id: string;
  readonly plugin: string | null;
  readonly target: WriteTarget;
  readonly source: ManifestSource;
  /** The document's absolute path, for diagnostics. */
  readonly sourcePath: string;
  readonly description: string;
  /** An agent's or command's text; null for a hook. */
  readonly text: string | null;
  /** A hook's event as Loadout reads it, its matcher and handler as written; null for a file. */
  readonly hook: { readonly event: string; readonly matcher: string | null; readonly handler: Readonly<Record<string, unknown>> } | null;
  /** The plugin's folder, which a plugin hook's command line names by a placeholder; null for the owner's. */
  readonly pluginRoot: string | null;
}

/** One change to an agent or command file, or a hook entry in a settings file. Never printed as is. */
export interface PlannedDocumentChange {
  readonly kind: DocumentKind;
  readonly action: ChangeAction;
  readonly runtime: string;
  readonly name: string;
  /** The file written, or the settings file that holds the hook. */
  readonly file: string;
  /** A hook's event as the runtime names it; null for a file. */
  readonly event: string | null;
  /** What the file or entry holds afterwards, hashed; the recorded hash for retire and release. */
  readonly hash: string | null;
  /** What it must still hold when the change runs (update, retire, adopt). */
  readonly expectedHash: string | null;
  /** The file's text, or the hook's handler group, for create and update. */
  readonly text: string | null;
  readonly value: Readonly<Record<string, unknown>> | null;
  readonly source: ManifestSource | null;
  readonly sourcePath: string | null;
  readonly reason: string;
}

/** One runtime's agents, commands and hooks part of a plan. */
/**
 * An agent, command or hook the runtime will load once the plan ran: one a plugin it reads in place
 * brings itself, or Loadout's copy in its folder or settings file. What the plan's `sees` says of
 * documents, as it says of skills.
 */
export interface DocumentSeen {
  readonly kind: DocumentKind;
  /**
   * As the runtime lists it: `<plugin>:<name>` for an agent or command of a plugin it reads in
   * place (the plugin's manifest name, as Claude Code namespaces a plugin's parts); the document's
   * own name otherwise.
   */
  readonly name: string;
  readonly plugin: string | null;
  /** `in-place`: the plugin read in place brings it; `written`: Loadout's copy, written or kept by this plan. */
  readonly state: 'in-place' | 'written';
  /** A hook's event as Loadout reads it; null for a file. */
  readonly event: string | null;
  /** Where the runtime reads it (redacted): the plugin's own file, or Loadout's copy or settings file. */
  readonly path: string;
}

export interface DocumentPlanPart {
  readonly changes: readonly PlannedDocumentChange[];
  /** Every agent, command and hook of Loadout's the runtime will load once the plan ran. */
  readonly sees: readonly DocumentSeen[];
  /** Documents it will not get, and why. */
  readonly skips: readonly ChangeReport[];
  readonly findings: readonly Diagnostic[];
}

export interface DocumentPlanInput {
  readonly runtime: string;
  /** Null: the adapter says nothing about agents, commands or hooks. */
  readonly support: RuntimeDocumentSupport | null;
  /** Whether its places were checked; an unconfirmed runtime gets nothing written. */
  readonly verified: boolean;
  readonly project: string | null;
  readonly env: RuntimeEnvironment;
  readonly documents: readonly SourceDocument[];
  readonly manifest: DocumentManifest;
  readonly show: (absolute: string) => string;
  /**
   * The name the runtime lists a Loadout plugin's parts under when it loads the plugin in place, as
   * its own plugin (the planner's {@link placePlugins} decision): then the plugin's agents,
   * commands and hooks arrive with it. Null when it does not read that plugin in place.
   */
  readonly inPlaceAs: (plugin: string) => string | null;
  /** How the installed client lets a copy of a plugin's agent be named (the adapter's version facts). */
  readonly copiedAgentNames?: CopiedAgentNames;
}

/** Records a document a runtime will not get: a code, the reason in words, and where it would have gone. */
type Skip = (document: SourceDocument, code: string, reason: string, where?: string | null) => void;
/** Records a document of Loadout's the runtime will load from `file` (its copy, or the settings file holding it), listed as `name`. */
type See = (document: SourceDocument, file: string, name?: string) => void;

/**
 * Why Loadout writes nothing at `where` (a folder, or a settings file, its own link counting too):
 * a link takes it out of the project (for the project's place) or the home folder; null when it
 * stays inside.
 */
function leadsOutside(input: DocumentPlanInput, where: string, target: WriteTarget): string | null {
  const escape = rootOutsideAnchor({ dir: where, scope: target }, input.project, input.env.home);
  if (escape === null) return null;
  return `${input.show(where)} leads out of ${input.show(escape.anchor)} through a link (it is ${input.show(escape.physical)}); nothing is written there`;
}

/** The hash of a file's text or a hook group's value as Loadout compares them. */
export function documentHash(content: string | Readonly<Record<string, unknown>>): string {
  return createHash('sha256')
    .update(typeof content === 'string' ? `loadout-document-v1\n${content}` : `loadout-hook-v1\n${canonicalJson(content)}`)
    .digest('hex');
}

/**
 * Plans one runtime's agents, commands and hooks: each wanted document translated for it and
 * compared with what its folder or settings file holds and with the manifest. A file or entry of
 * the user's is never overwritten (a collision is a skip with the reason), Loadout's own unedited
 * ones are updated or retired, and an edited one is left to the user.
 */
export function planDocuments(input: DocumentPlanInput): DocumentPlanPart {
  const changes: PlannedDocumentChange[] = [];
  const skips: ChangeReport[] = [];
  const findings: Diagnostic[] = [];
  const skip: Skip = (document, code, reason, where = null) => {
    skips.push({
      kind: document.kind,
      action: 'skip',
      code,
      name: document.id,
      path: where,
      hash: null,
      source: input.show(document.sourcePath),
      reason,
    });
  };
  const sees: DocumentSeen[] = [];
  const see: See = (document, file, name = document.id) => {
    sees.push({
      kind: document.kind,
      name,
      plugin: document.plugin,
      state: 'written',
      event: document.hook?.event ?? null,
      path: input.show(file),
    });
  };
  const wanted: SourceDocument[] = [];
  for (const document of input.documents) {
    // The one place a plugin the runtime loads itself is left out: its documents arrive with it, never copied twice.
    const listedAs = document.plugin === null ? null : input.inPlaceAs(document.plugin);
    if (listedAs !== null) {
      skip(
        document,
        'LOADED_IN_PLACE',
        `${input.runtime} loads plugin "${document.plugin}" in place, which brings this ${document.kind} itself`,
      );
      sees.push({
        kind: document.kind,
        name: document.kind === 'hook' ? document.id : `${listedAs}:${document.id}`,
        plugin: document.plugin,
        state: 'in-place',
        event: document.hook?.event ?? null,
        path: input.show(document.sourcePath),
      });
    } else {
      wanted.push(document);
    }
  }
  for (const kind of ['agent', 'command', 'hook'] as const) {
    const ofKind = wanted.filter((document) => document.kind === kind);
    const place = input.support?.[kind] ?? null;
    if (!input.verified || place === null || typeof place === 'string') {
      const reason =
        input.verified && typeof place === 'string'
          ? place
          : `where ${input.runtime} reads ${kind}s is not confirmed; nothing is written for it`;
      for (const document of ofKind) skip(document, 'DOCUMENT_PLACE_UNCONFIRMED', reason);
      continue;
    }
    if (kind === 'hook') planHooks(input, place as HookSettings, ofKind, changes, skip, see, findings);
    else planFiles(input, kind, place as DocumentFolders, ofKind, changes, skip, see);
  }
  return { changes, sees, skips, findings };
}

function planFiles(
  input: DocumentPlanInput,
  kind: FileDocumentKind,
  place: DocumentFolders,
  documents: readonly SourceDocument[],
  changes: PlannedDocumentChange[],
  skip: Skip,
  see: See,
): void {
  const folders = place.folders(input.project, input.env);
  const managed = input.manifest.entriesOf(input.runtime).filter((entry) => entry.kind === kind);
  const taken = new Set<string>();
  // The names listed per place: a client that lists one agent per name shows only one of two copies.
  const listedNames = new Set<string>();
  for (const document of documents) {
    const dir = folders[document.target];
    if (dir === null) {
      skip(document, 'DOCUMENT_PLACE_UNCONFIRMED', `${input.runtime} has no ${document.target} folder for ${kind}s here`);
      continue;
    }
    const translated = place.translate({
      id: document.id,
      plugin: document.plugin,
      text: document.text ?? '',
      description: document.description,
      ...(input.copiedAgentNames === undefined ? {} : { copiedAgentNames: input.copiedAgentNames }),
    });
    if ('skip' in translated) {
      skip(document, 'DOCUMENT_NOT_TRANSLATED', translated.skip);
      continue;
    }
    const file = path.join(dir, ...translated.file.split('/'));
    // Listed by its path in the folder (a plugin's command in `kit/ship.md` is `/kit:ship`) unless the translation names it.
    const listedAs = translated.listedAs ?? translated.file.replace(/\.md$/, '').split('/').join(':');
    const listedKey = `${document.target}\0${listedAs}`;
    if (listedNames.has(listedKey)) {
      skip(
        document,
        'DOCUMENT_SAME_NAME',
        `another ${kind} is listed as ${listedAs} in ${input.runtime} already (the owner's first, then plugins in install order); ${input.runtime} lists one ${kind} per name`,
        input.show(file),
      );
      continue;
    }
    listedNames.add(listedKey);
    if (taken.has(file)) {
      skip(document, 'DOCUMENT_COLLISION', `another ${kind} is written as ${input.show(file)} already`, input.show(file));
      continue;
    }
    taken.add(file);
    const away = leadsOutside(input, path.dirname(file), document.target);
    if (away !== null) {
      skip(document, 'RUNTIME_ROOT_OUTSIDE', away, input.show(file));
      continue;
    }
    const hash = documentHash(translated.text);
    const current = currentFileHash(file);
    const entry = managed.find((candidate) => candidate.file === file);
    const change = (action: ChangeAction, reason: string, expectedHash: string | null): void => {
      changes.push({
        kind,
        action,
        runtime: input.runtime,
        name: document.id,
        file,
        event: null,
        hash,
        expectedHash,
        text: action === 'create' || action === 'update' ? translated.text : null,
        value: null,
        source: document.source,
        sourcePath: document.sourcePath,
        reason,
      });
    };
    if (current === 'not-a-file') {
      skip(document, 'DOCUMENT_COLLISION', `${input.show(file)} is not a plain file; it is left as it is`, input.show(file));
    } else if (current === null) {
      change('create', `${kind} is on and not in ${input.runtime}'s folder`, null);
      see(document, file, listedAs);
    } else if (current === hash) {
      if (entry === undefined || entry.hash !== hash) change('adopt', 'the file already holds exactly what Loadout writes', hash);
      see(document, file, listedAs);
    } else if (entry !== undefined && entry.hash === current) {
      change('update', `the ${kind} changed; Loadout's unedited copy is replaced`, current);
      see(document, file, listedAs);
    } else {
      skip(
        document,
        entry === undefined ? 'DOCUMENT_COLLISION' : 'DOCUMENT_EDITED',
        entry === undefined
          ? `collision: ${input.show(file)} is the user's own file; it is kept and Loadout's ${kind} is not written`
          : `${input.show(file)} was edited after Loadout wrote it; the edit is kept`,
        input.show(file),
      );
    }
  }
  // What Loadout wrote before into the folders planned now and no longer wants.
  const planned = Object.values(folders).filter((dir): dir is string => dir !== null);
  for (const entry of managed) {
    if (taken.has(entry.file) || !planned.some((dir) => isInside(dir, entry.file))) continue;
    // A folder a link now takes elsewhere is left alone, what Loadout wrote there included.
    const target = folders.project !== null && isInside(folders.project, entry.file) ? 'project' : 'user';
    if (leadsOutside(input, path.dirname(entry.file), target) !== null) continue;
    const current = currentFileHash(entry.file);
    changes.push(leftover(entry, current === null ? 'forget' : current === entry.hash ? 'retire' : 'release', null));
  }
}

/** A manifest entry no longer wanted: retired, released (edited by the user: it stays) or forgotten (gone). */
function leftover(entry: DocumentManifestEntry, action: 'retire' | 'release' | 'forget', sourcePath: string | null): PlannedDocumentChange {
  const reasons = {
    retire: `the ${entry.kind} is off, held or gone from Loadout; Loadout's unedited copy is moved to the trash`,
    release: `the ${entry.kind} is no longer Loadout's to write, and was edited after Loadout wrote it: it stays, unmanaged`,
    forget: `Loadout's ${entry.kind} is gone already`,
  };
  return {
    kind: entry.kind,
    action,
    runtime: entry.runtime,
    name: entry.name,
    file: entry.file,
    event: entry.event,
    hash: entry.hash,
    expectedHash: action === 'retire' ? entry.hash : null,
    text: null,
    value: null,
    source: entry.source,
    sourcePath,
    reason: reasons[action],
  };
}

/** The hash of a file's text; null when there is none; `not-a-file` for a folder or anything else. */
function currentFileHash(file: string): string | 'not-a-file' | null {
  const stats = trackedFs.lstatSync(file, { throwIfNoEntry: false });
  if (stats === undefined) return null;
  if (!stats.isFile()) return 'not-a-file';
  return documentHash(trackedFs.readFileSync(file, 'utf8'));
}

/** The handler group a hook is written as: its matcher, and its one handler with its plugin's folder written out. */
export function hookGroup(document: SourceDocument, settings: HookSettings): Record<string, unknown> {
  const hook = document.hook as NonNullable<SourceDocument['hook']>;
  const handler: Record<string, unknown> = { ...hook.handler };
  if (document.pluginRoot !== null) {
    const root = document.pluginRoot;
    for (const field of ['command', 'prompt'] as const) {
      if (typeof handler[field] !== 'string') continue;
      let text = handler[field];
      for (const name of settings.pluginRootNames)
        text = text
          .split(`\${${name}}`)
          .join(root)
          .replace(new RegExp(`\\$${name}(?![A-Za-z0-9_])`, 'g'), root);
      handler[field] = text;
    }
  }
  return { ...(hook.matcher === null ? {} : { matcher: hook.matcher }), hooks: [handler] };
}

/** The handler groups of one event in a settings file's parsed value, as hashes in order. */
export function groupHashes(settings: unknown, event: string): string[] {
  const hooks = (settings as { hooks?: unknown } | null)?.hooks;
  if (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks)) return [];
  const groups = (hooks as Record<string, unknown>)[event];
  if (!Array.isArray(groups)) return [];
  return groups.map((group) =>
    group !== null && typeof group === 'object' && !Array.isArray(group) ? documentHash(group as Record<string, unknown>) : '',
  );
}

/** A settings file's parsed value; null when it does not exist; a reason when it cannot be edited. */
export function readSettings(file: string, label: string): { value: unknown; text: string | null } | { problem: string } {
  let text: string | null;
  try {
    text = readConfigText(file, label);
  } catch (error) {
    return { problem: (error as Error).message };
  }
  if (text === null) return { value: {}, text: null };
  if (text.trim() === '') return { value: {}, text };
  try {
    const value = JSON.parse(text) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return { problem: `${label} does not hold a JSON object` };
    const hooks = (value as { hooks?: unknown }).hooks;
    if (hooks !== undefined && (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks)))
      return { problem: `${label}: "hooks" is not an object` };
    return { value, text };
  } catch (error) {
    return { problem: `${label} is not JSON (${(error as Error).message}); Loadout leaves it as it is` };
  }
}

function planHooks(
  input: DocumentPlanInput,
  settings: HookSettings,
  documents: readonly SourceDocument[],
  changes: PlannedDocumentChange[],
  skip: Skip,
  see: See,
  findings: Diagnostic[],
): void {
  const files = settings.files(input.project, input.env);
  const managed = input.manifest.entriesOf(input.runtime).filter((entry) => entry.kind === 'hook');
  const read = new Map<string, ReturnType<typeof readSettings>>();
  const settingsOf = (file: string): ReturnType<typeof readSettings> => {
    let found = read.get(file);
    if (found === undefined) {
      found = readSettings(file, input.show(file));
      read.set(file, found);
      if ('problem' in found)
        findings.push({ code: 'RUNTIME_HOOKS_UNREADABLE', severity: 'error', path: file, message: `${input.runtime}: ${found.problem}` });
    }
    return found;
  };
  // Each group of the file is claimed once: two Loadout hooks of one value are two groups.
  const claimed = new Map<string, Set<number>>();
  const claim = (file: string, event: string, hash: string): boolean => {
    const current = settingsOf(file);
    if ('problem' in current) return false;
    const key = `${file}\0${event}`;
    const used = claimed.get(key) ?? new Set<number>();
    claimed.set(key, used);
    const index = groupHashes(current.value, event).findIndex((candidate, position) => candidate === hash && !used.has(position));
    if (index === -1) return false;
    used.add(index);
    return true;
  };
  const kept = new Set<DocumentManifestEntry>();
  for (const document of documents) {
    const hook = document.hook as NonNullable<SourceDocument['hook']>;
    const file = files[document.target];
    if (file === null) {
      skip(document, 'DOCUMENT_PLACE_UNCONFIRMED', `${input.runtime} has no ${document.target} settings file for hooks here`);
      continue;
    }
    const event = settings.events[hook.event];
    if (event === undefined) {
      skip(document, 'HOOK_EVENT_UNSUPPORTED', `${input.runtime} has no "${hook.event}" event; the hook is not written`, input.show(file));
      continue;
    }
    const away = leadsOutside(input, file, document.target);
    if (away !== null) {
      skip(document, 'RUNTIME_ROOT_OUTSIDE', away, input.show(file));
      continue;
    }
    if ('problem' in settingsOf(file)) {
      skip(document, 'RUNTIME_HOOKS_UNREADABLE', `${input.show(file)} cannot be edited (see the finding)`, input.show(file));
      continue;
    }
    const value = hookGroup(document, settings);
    const hash = documentHash(value);
    const entry = managed.find((candidate) => candidate.file === file && candidate.event === event && candidate.name === document.id);
    if (entry !== undefined) kept.add(entry);
    const change = (action: ChangeAction, reason: string, expectedHash: string | null): void => {
      changes.push({
        kind: 'hook',
        action,
        runtime: input.runtime,
        name: document.id,
        file,
        event,
        hash,
        expectedHash,
        text: null,
        value: action === 'create' || action === 'update' ? value : null,
        source: document.source,
        sourcePath: document.sourcePath,
        reason,
      });
    };
    see(document, file);
    if (entry !== undefined && entry.hash === hash && claim(file, event, hash)) continue;
    if (entry !== undefined && entry.hash !== hash && claim(file, event, entry.hash)) {
      change('update', "the hook changed; Loadout's entry is replaced", entry.hash);
    } else if (claim(file, event, hash)) {
      change('adopt', 'the settings already hold exactly this entry', hash);
    } else {
      change('create', `the hook is on and not in ${input.runtime}'s settings`, null);
    }
  }
  const planned = Object.values(files).filter((file): file is string => file !== null);
  for (const entry of managed) {
    if (kept.has(entry) || !planned.includes(entry.file)) continue;
    if (leadsOutside(input, entry.file, entry.file === files.project ? 'project' : 'user') !== null) continue;
    const current = settingsOf(entry.file);
    if ('problem' in current) continue;
    changes.push(leftover(entry, claim(entry.file, entry.event as string, entry.hash) ? 'retire' : 'forget', null));
  }
}
