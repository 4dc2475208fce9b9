import crypto from 'node:crypto';
import path from 'node:path';
import { type CapabilityKind, CapabilityKinds, type CapabilityRecord, collisionKey, type Root, type RunnableParts } from '@loadout/kernel';
import { isLoadoutError, pathAndRealPath } from '@loadout/files';
import { injectable, injectAll } from 'tsyringe';
import { type RunnableFile, RunnableFiles } from './RunnableFiles.js';

/** What a runnable capability runs, read now, with its fingerprint; or why it could not be read. */
export type RunnableReading =
  | { readonly ok: true; readonly parts: RunnableParts; readonly fingerprint: string }
  | { readonly ok: false; readonly problem: string };

/** The key a capability's approval is stored under: `<kind>/<lower-cased id>`. */
export function approvalKey(record: Pick<CapabilityRecord, 'kind' | 'id'>): string {
  return `${record.kind}/${collisionKey(record.id)}`;
}

/**
 * Which capabilities run something, and what: asks each kind's `runnable` (a kind without one is
 * text, never held), follows what the files it names load, and fingerprints the whole
 * ({@link fingerprintOf}), so a changed script, a changed file it imports, a changed command line
 * or a new file in a task's folder changes it, and text (a description, a SKILL.md) never does.
 */
@injectable()
export class RunnableCapabilities {
  private readonly kinds: ReadonlyMap<string, CapabilityKind>;
  private readonly files = new RunnableFiles();

  constructor(@injectAll(CapabilityKinds) kinds: CapabilityKind[]) {
    this.kinds = new Map(kinds.map((kind) => [kind.kind, kind]));
  }

  /** Whether `record` may run something, from the record alone (a skill of text may not); {@link read} says for certain. */
  isRunnable(record: CapabilityRecord): boolean {
    const kind = this.kinds.get(record.kind);
    return kind?.runnable !== undefined && (kind.mayRun?.(record) ?? true);
  }

  /** The kinds whose capabilities run something: the only ones a search for runnable capabilities reads. */
  runnableKinds(): CapabilityKind[] {
    return [...this.kinds.values()].filter((kind) => kind.runnable !== undefined);
  }

  /**
   * Reads what `record` (of `root`) runs now: what its kind names, widened to every file that
   * loads (see {@link RunnableFiles}), so the fingerprint, a diff and an audit all see the same
   * files. Null for a text capability (a kind of text, or a skill without scripts or tool grants).
   */
  read(record: CapabilityRecord, root: Root): RunnableReading | null {
    const kind = this.kinds.get(record.kind);
    if (kind?.runnable === undefined) return null;
    try {
      const named = kind.runnable(record, root);
      if (named === null) return null;
      const files = this.files.closure(named.files, root.dir);
      const inRoot = files.filter((file) => !file.name.startsWith('outside:')).map((file) => file.path);
      const parts: RunnableParts = {
        ...named,
        files: files.map((file) => file.path),
        sources: [...new Set([...named.sources, ...inRoot])],
      };
      return { ok: true, parts, fingerprint: fingerprintOf(named.definition, files, root.dir) };
    } catch (error) {
      if (isLoadoutError(error) || (error as NodeJS.ErrnoException).code !== undefined)
        return { ok: false, problem: (error as Error).message };
      throw error;
    }
  }
}

/**
 * The one fingerprint of what a capability runs: a SHA-256 over its definition (canonical JSON,
 * with the root's own path written back as `${PLUGIN_ROOT}`, so it is the definition as written,
 * whichever format expanded it and wherever the plugin is installed) and each file's name with
 * the hash of its bytes.
 */
export function fingerprintOf(definition: unknown, files: readonly RunnableFile[], rootDir: string): string {
  const roots = pathAndRealPath(rootDir).sort((a, b) => b.length - a.length);
  const written = canonicalJson(definition ?? null, (text) => roots.reduce((result, root) => placeholderFor(result, root), text));
  const hashed = files.map((file) => [file.name, file.hash]);
  return crypto
    .createHash('sha256')
    .update(`{"definition":${written},"files":${canonicalJson(hashed)}}`)
    .digest('hex');
}

/** `text` with every place it names `root` (itself, or a path below it) written as `${PLUGIN_ROOT}`. */
function placeholderFor(text: string, root: string): string {
  let result = '';
  let from = 0;
  for (let at = text.indexOf(root); at !== -1; at = text.indexOf(root, at + root.length)) {
    const next = text[at + root.length];
    if (next !== undefined && next !== '/' && next !== path.sep) continue;
    result += `${text.slice(from, at)}\${PLUGIN_ROOT}`;
    from = at + root.length;
  }
  return result + text.slice(from);
}

/** JSON with object keys sorted at every depth, so equal data always hashes alike. */
function canonicalJson(value: unknown, text: (value: string) => string = (same) => same): string {
  if (typeof value === 'string') return JSON.stringify(text(value));
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, text)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item, text)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
