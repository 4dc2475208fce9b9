import path from 'node:path';
import {
  type CapabilityKind,
  capabilityId,
  declaredGates,
  type EntryScan,
  type KindDocument,
  type KindFolderEntry,
  readJsonCapability,
  redactSecrets,
  slugify,
} from '@loadout/kernel';
import { DocumentRefusedError } from '@loadout/files';
import { HOOK_HANDLER, type HookRecord } from './HookRecord.js';
import { handlersIn, type HooksFile, hooksFileShape } from './hooksFile.js';
import { hookRunnableParts } from './hookRunnableParts.js';

/**
 * A hooks file is `hooks/<name>.json`; it holds hooks under events, none of them named. Each hook's
 * id is the file's stem and its event (`hooks-session-start` for the first `SessionStart` hook of
 * `hooks/hooks.json`), then `-2`, `-3` … for later ones under the same event, so adding a hook
 * after it never renames one the owner has switched.
 */
export const HOOK_DOCUMENT = { idRule: 'entry', nameField: 'json' } as const satisfies KindDocument;

/** The hook kind: `hooks/*.json` in every root. Runnable: every hook runs something. */
export const hookKind: CapabilityKind<HookRecord> = {
  kind: 'hook',
  folder: 'hooks',
  sessionKey: 'hooks',
  document: HOOK_DOCUMENT,
  readEntry: readHooksEntry,
  runnable: hookRunnableParts,
};

/**
 * Reads one entry of a hooks folder. Only `.json` files are hooks files: the scripts a plugin keeps
 * beside its `hooks.json` (`hooks/session-start.sh`) are what hooks run, not hooks. The file is
 * read as JSON data, bounded, inside its root; nothing in it is run here.
 */
export function readHooksEntry(entry: KindFolderEntry): EntryScan<HookRecord> {
  if (entry.isDirectory || !entry.name.toLowerCase().endsWith('.json')) return { records: [], diagnostics: [] };
  const relative = path.relative(entry.root.dir, entry.path);
  const file = entry.content === undefined ? readJsonCapability(entry.root.dir, entry.path, hooksFileShape) : inlineHooks(entry, relative);
  if (file === null) return { records: [], diagnostics: [] };
  const stem = capabilityId(undefined, entry.content === undefined ? relative : entry.name, HOOK_DOCUMENT);
  const gates = declaredGates(file.gates, relative);
  const perEvent = new Map<string, number>();
  const records = handlersIn(file).map(({ event, matcher, handler }): Omit<HookRecord, 'kind' | 'level' | 'plugin'> => {
    const count = (perEvent.get(event) ?? 0) + 1;
    perEvent.set(event, count);
    const id = hookId(stem, event, count);
    const shown = handler.command ?? handler.prompt ?? null;
    return {
      id,
      name: id,
      description: file.description ?? `on ${event}${matcher === null ? '' : ` (${matcher})`}`,
      path: entry.path,
      gates,
      event,
      matcher,
      type: handler.type,
      command: shown === null ? null : redactSecrets(shown),
      timeout: handler.timeout ?? null,
      [HOOK_HANDLER]: handler,
    };
  });
  return { records, diagnostics: [] };
}

/** `<stem>-<event in kebab case>`, `-2`, `-3` … after the first; a slug, within the id budget. */
export function hookId(stem: string, event: string, count: number): string {
  const kebabEvent = event.replace(/([a-z0-9])([A-Z])/g, '$1-$2');
  const suffix = count === 1 ? '' : `-${count}`;
  return `${slugify(`${stem}-${kebabEvent}`)
    .slice(0, 64 - suffix.length)
    .replace(/-+$/, '')}${suffix}`;
}

/** Hooks a plugin's manifest declares in itself, checked against the same format as a file. */
function inlineHooks(entry: KindFolderEntry, relative: string): HooksFile {
  const checked = hooksFileShape(entry.content);
  if (!checked.ok) throw new DocumentRefusedError('DOCUMENT_INVALID', `${relative} (hooks): ${checked.reason}`);
  return checked.value;
}
