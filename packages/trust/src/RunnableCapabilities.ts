import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  type CapabilityKind,
  CapabilityKinds,
  type CapabilityRecord,
  collisionKey,
  isLoadoutError,
  realpathInside,
  type Root,
  type RunnableParts,
} from '@loadout/kernel';
import { injectable, injectAll } from 'tsyringe';

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
 * text, never held) and fingerprints the answer. The fingerprint is a SHA-256 over the definition
 * (as canonical JSON) and each file's path inside the root with the hash of its bytes, so a
 * changed script, a changed command line or a new file in a task's folder changes it, and text
 * (a description, a SKILL.md) never does.
 */
@injectable()
export class RunnableCapabilities {
  private readonly kinds: ReadonlyMap<string, CapabilityKind>;
  /**
   * Each file's hash by its real path, kept while its size, change time and inode stay the same:
   * every session asks, and re-reading every plugin script each time would cost a session open
   * what the watch cache saved it.
   */
  private readonly fileHashes = new Map<string, { stamp: string; hash: string }>();

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

  /** Reads what `record` (of `root`) runs now. Null for a text capability (a kind of text, or a skill without scripts or tool grants). */
  read(record: CapabilityRecord, root: Root): RunnableReading | null {
    const kind = this.kinds.get(record.kind);
    if (kind?.runnable === undefined) return null;
    try {
      const parts = kind.runnable(record, root);
      if (parts === null) return null;
      return { ok: true, parts, fingerprint: this.fingerprintOf(parts, root.dir) };
    } catch (error) {
      if (isLoadoutError(error) || (error as NodeJS.ErrnoException).code !== undefined) return { ok: false, problem: (error as Error).message };
      throw error;
    }
  }

  private fingerprintOf(parts: RunnableParts, rootDir: string): string {
    const files = parts.files.map((file) => [path.relative(rootDir, file).split(path.sep).join('/'), this.hashOf(rootDir, file)]);
    return crypto.createHash('sha256').update(canonicalJson({ definition: parts.definition ?? null, files })).digest('hex');
  }

  private hashOf(rootDir: string, file: string): string {
    const real = realpathInside(rootDir, file);
    if (real === null) return 'missing';
    const stats = fs.statSync(real, { bigint: true });
    const stamp = `${stats.size}:${stats.ctimeNs}:${stats.mtimeNs}:${stats.ino}`;
    const known = this.fileHashes.get(real);
    if (known?.stamp === stamp) return known.hash;
    const hash = crypto.createHash('sha256').update(fs.readFileSync(real)).digest('hex');
    this.fileHashes.set(real, { stamp, hash });
    return hash;
  }
}

/** JSON with object keys sorted at every depth, so equal data always hashes alike. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
