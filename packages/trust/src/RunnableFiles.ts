import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DocumentRefusedError, isInside, isRegularFile, trackedFs } from '@loadout/files';
import { fileReferences, isScript } from './fileReferences.js';

/** The most files one capability's closure may hold; more and it cannot be approved (it is held). */
export const MAX_RUNNABLE_FILES = 2048;
/** The largest script whose text is read for what it loads; a larger one cannot be approved. */
export const MAX_SCANNED_BYTES = 16 * 1024 * 1024;

/** One file of what a capability runs: its name for the fingerprint and the hash of its bytes. */
export interface RunnableFile {
  /** Absolute path as it was reached (through the root, or through a reference). */
  readonly path: string;
  /** `/`-separated path inside the root, or `outside:<real path>` for a file a reference reaches outside it. */
  readonly name: string;
  /** SHA-256 of its bytes, or `missing` when it is not a regular file. */
  readonly hash: string;
}

interface FileFacts {
  readonly stamp: string;
  readonly hash: string;
  /** What its text names (see {@link fileReferences}); empty for a file that is not a script. */
  readonly references: readonly (readonly string[])[];
}

/**
 * The files a runnable capability runs, found from the ones its kind names (a task's folder, a
 * server's script) by following what each script's text loads, as far as it goes: into the rest
 * of the plugin (`../../lib/x.mjs`) and outside it. One closure for every kind, so a kind added
 * later (hooks) is covered by naming its entry files.
 */
export class RunnableFiles {
  /**
   * Each file's hash and references by its real path, kept while its size, change time and inode
   * stay the same: every session asks, and re-reading every plugin script each time would cost a
   * session open what the watch cache saved it. Which candidate of a reference exists is looked
   * at every time: a file that appears beside an unchanged script may be the one that now runs.
   */
  private readonly facts = new Map<string, FileFacts>();

  closure(entries: readonly string[], rootDir: string): RunnableFile[] {
    const realRoot = realOrNull(rootDir) ?? rootDir;
    const found: RunnableFile[] = [];
    const seen = new Set<string>();
    const queue: string[] = [...entries];
    const referenced = new Set<string>();
    while (queue.length > 0) {
      const file = queue.shift() as string;
      const real = realOrNull(file);
      const key = real ?? file;
      if (seen.has(key)) continue;
      seen.add(key);
      if (found.length >= MAX_RUNNABLE_FILES) {
        throw new DocumentRefusedError(
          'RUNNABLE_TOO_MANY_FILES',
          `what it runs reaches more than ${MAX_RUNNABLE_FILES} files; it cannot be approved`,
        );
      }
      const name = nameOf(file, real, rootDir, realRoot);
      const facts = real === null ? null : this.factsOf(real, name);
      found.push({ path: file, name, hash: facts?.hash ?? 'missing' });
      for (const candidates of facts?.references ?? []) {
        const target = candidates.find((candidate) => candidate !== file && isRegularFile(candidate));
        if (target !== undefined && !referenced.has(target)) {
          referenced.add(target);
          queue.push(target);
        }
      }
    }
    return found;
  }

  private factsOf(real: string, name: string): FileFacts | null {
    let stats: fs.BigIntStats;
    try {
      stats = trackedFs.statSync(real, { bigint: true });
    } catch {
      return null;
    }
    if (!stats.isFile()) return null;
    const stamp = `${stats.size}:${stats.ctimeNs}:${stats.mtimeNs}:${stats.ino}`;
    const known = this.facts.get(real);
    if (known?.stamp === stamp) return known;
    const bytes = trackedFs.readFileSync(real);
    const script = isScript(real, bytes.subarray(0, 2));
    if (script && bytes.length > MAX_SCANNED_BYTES) {
      throw new DocumentRefusedError(
        'RUNNABLE_FILE_TOO_LARGE',
        `${name}: a script over ${MAX_SCANNED_BYTES / 1024 / 1024} MiB is not read for what it loads; it cannot be approved`,
      );
    }
    const facts: FileFacts = {
      stamp,
      hash: crypto.createHash('sha256').update(bytes).digest('hex'),
      references: script ? fileReferences(real, bytes.toString('utf8')) : [],
    };
    this.facts.set(real, facts);
    return facts;
  }
}

/** The file's path inside the root (as reached, else as its real path), or `outside:<real path>`. */
function nameOf(file: string, real: string | null, rootDir: string, realRoot: string): string {
  const relative = (base: string, target: string) => path.relative(base, target).split(path.sep).join('/');
  if (real === null || isInside(realRoot, real)) {
    if (isInside(rootDir, file)) return relative(rootDir, file);
    if (real !== null) return relative(realRoot, real);
  }
  return `outside:${real ?? file}`;
}

function realOrNull(file: string): string | null {
  try {
    return trackedFs.realpathSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'ELOOP')
      throw new DocumentRefusedError(
        'LINK_LOOP',
        `${path.basename(file)}: is a link that leads back to itself (a loop); it cannot be approved`,
      );
    throw error;
  }
}
