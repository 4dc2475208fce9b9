import path from 'node:path';
import { type DocumentRead, isJsonObject } from '@loadout/kernel';
import {
  DocumentRefusedError,
  emptyFileBytes,
  PRIVATE_FILE_MODE,
  RACY_MS,
  readRegularFile,
  type RegularFileOptions,
  writeFileAtomicSync,
} from '@loadout/files';
import type { SkillFileFacts } from './RuntimeAdapter.js';
import { type BundleStamps, bundleFromStamps, readSkillBundle, type SkillBundle } from './SkillBundle.js';

/** Where the stamps of the bundles an apply read are kept, inside the data folder. */
export const BUNDLE_STAMPS_FILE = path.join('runtimes', 'bundle-stamps.json');

/** The most bundles kept; past it only those the last apply read are kept. */
const MAX_KEPT = 50_000;
/** The largest cache file read (50,000 bundles of a few files each fit). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

const HASH = /^[0-9a-f]{64}$/;

/**
 * The kept bundles of a cache file's JSON, every one checked (a hash, stamps by relative path, an
 * absolute path); none at all when anything in it is off. Checked by hand, not by a schema: it is
 * read by every apply, and a schema over thousands of entries cost more than the reads it saves.
 */
function keptBundles(raw: unknown): Map<string, BundleStamps> {
  const kept = new Map<string, BundleStamps>();
  if (!isJsonObject(raw) || raw.version !== 1 || !isJsonObject(raw.bundles)) return kept;
  for (const [entry, stamps] of Object.entries(raw.bundles)) {
    if (
      !path.isAbsolute(entry) ||
      !isJsonObject(stamps) ||
      typeof stamps.hash !== 'string' ||
      !HASH.test(stamps.hash) ||
      !isJsonObject(stamps.files)
    )
      return new Map();
    for (const [relative, stamp] of Object.entries(stamps.files))
      if (typeof stamp !== 'string' || !isBundlePath(relative)) return new Map();
    kept.set(entry, { hash: stamps.hash, files: stamps.files as Record<string, string> });
  }
  return kept;
}

/** `''` (the bundle itself) or a relative path below it: no leading or doubled `/`, no `.` or `..` step. */
function isBundlePath(relative: string): boolean {
  return relative === '' || relative.split('/').every((step) => step !== '' && step !== '.' && step !== '..');
}

/**
 * What each skill bundle an apply read looked like (see {@link BundleStamps}), so the next apply
 * can tell an unchanged bundle by a `lstat` of each of its paths instead of reading and hashing
 * it: the source skills and their copies in the runtimes' folders. Kept in the data folder, not in
 * a runtime folder's manifest: inodes and times are facts of this machine, and a project's
 * manifest may be committed. A missing, unreadable or damaged file only costs the reads it would
 * have saved; a stamp that no longer holds, or one too recent to trust, means the bundle is read.
 */
export class BundleStampCache {
  /** What this plan read or confirmed, by path; written back when it differs from what was kept. */
  private readonly seen = new Map<string, BundleStamps | null>();
  /** `SKILL.md` texts by bundle hash, of the bundles this plan read. */
  private readonly texts = new Map<string, string>();
  /** The frontmatter each of those texts holds, by bundle hash (null: none a runtime can read). */
  private readonly frontmatters = new Map<string, SkillFileFacts['frontmatter']>();
  /** The relative paths each bundle of this plan holds, by hash. */
  private readonly paths = new Map<string, ReadonlySet<string>>();
  /** The time after which a change makes a stamp untrusted, fixed when the plan starts. */
  readonly racyBefore = Date.now() - RACY_MS;

  private constructor(
    private readonly dataDir: string | null,
    private readonly kept: ReadonlyMap<string, BundleStamps>,
  ) {}

  /** The kept stamps; none when the file is missing or cannot be used (it is then rewritten whole). */
  static read(dataDir: string): BundleStampCache {
    return new BundleStampCache(dataDir, keptBundles(readCacheFile(path.join(dataDir, BUNDLE_STAMPS_FILE))));
  }

  /** A cache that keeps nothing and knows nothing: every bundle is read. */
  static none(): BundleStampCache {
    return new BundleStampCache(null, new Map());
  }

  /**
   * The bundle at `entry` (under `rootDir`, whose links it may follow): known by its kept stamps
   * when every one still holds, else read and hashed, and its fresh stamps noted for the next apply.
   * `scanned`: what the session's scan kept of its `SKILL.md`, whose text a bundle known by its
   * stamps takes when that file is unchanged since ({@link bundleFromStamps}).
   * Throws what {@link readSkillBundle} throws.
   */
  bundle(rootDir: string, entry: string, scanned?: DocumentRead): SkillBundle | null {
    const known = this.known(rootDir, entry, scanned);
    if (known !== null) return known;
    this.seen.set(entry, null);
    const bundle = readSkillBundle(rootDir, entry, this.racyBefore);
    this.seen.set(entry, bundle?.stamps ?? null);
    return bundle;
  }

  /**
   * Remembers a bundle's `SKILL.md` text and the frontmatter read from it by its hash: a copy of
   * the same hash has the same text, so neither is read nor parsed again for it.
   */
  noteText(hash: string, text: string, frontmatter: SkillFileFacts['frontmatter']): void {
    this.texts.set(hash, text);
    this.frontmatters.set(hash, frontmatter);
  }

  /** The frontmatter of the `SKILL.md` of a bundle of this hash read in this plan ({@link noteText}); undefined when none was. */
  frontmatterOf(hash: string): SkillFileFacts['frontmatter'] | undefined {
    return this.frontmatters.get(hash);
  }

  /**
   * Remembers which paths a bundle read or known in this plan holds (its stamps' paths when it has
   * them, so a bundle known by its stamps is not read for it): a copy of the same hash holds the same.
   */
  notePaths(bundle: SkillBundle): void {
    if (this.paths.has(bundle.hash)) return;
    const paths = bundle.stamps !== null ? Object.keys(bundle.stamps.files) : bundle.files.map((file) => file.path);
    this.paths.set(bundle.hash, new Set(paths));
  }

  /** Whether the bundle of this hash holds `relative` (`/`-separated); undefined when this plan did not note it. */
  holds(hash: string, relative: string): boolean | undefined {
    return this.paths.get(hash)?.has(relative);
  }

  /**
   * A copy known by its kept stamps, and its `SKILL.md` text when a bundle of the same hash was read
   * in this plan ({@link noteText}): neither is read. Null when the stamps do not hold or the text
   * is not known.
   */
  knownCopy(rootDir: string, entry: string): { readonly bundle: SkillBundle; readonly text: string } | null {
    const kept = this.kept.get(entry);
    const text = kept === undefined ? undefined : this.texts.get(kept.hash);
    if (text === undefined) return null;
    const bundle = this.known(rootDir, entry);
    return bundle === null ? null : { bundle, text };
  }

  private known(rootDir: string, entry: string, scanned?: DocumentRead): SkillBundle | null {
    const kept = this.kept.get(entry);
    const known = kept === undefined ? null : bundleFromStamps(rootDir, entry, kept, this.racyBefore, scanned);
    if (known !== null) this.seen.set(entry, kept as BundleStamps);
    return known;
  }

  /** Drops what is kept of `entry`: it is being written, and its stamps will not hold. */
  forget(entry: string): void {
    this.seen.set(entry, null);
  }

  /**
   * Writes what this plan learned when it differs from what was kept: the stamps of every bundle
   * it read, and those kept for bundles it did not look at (another runtime's folders), unless
   * that grows past {@link MAX_KEPT}.
   */
  save(): void {
    if (this.dataDir === null) return;
    let changed = false;
    let added = 0;
    for (const [entry, stamps] of this.seen) {
      const kept = this.kept.get(entry);
      if (stamps !== (kept ?? null)) changed = true;
      if (kept === undefined) added += 1;
    }
    if (!changed) return;
    const next = new Map<string, BundleStamps>();
    if (this.kept.size + added <= MAX_KEPT) {
      for (const [entry, stamps] of this.kept) if (!this.seen.has(entry)) next.set(entry, stamps);
    }
    for (const [entry, stamps] of this.seen) if (stamps !== null) next.set(entry, stamps);
    const bundles = Object.fromEntries([...next].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    writeFileAtomicSync(path.join(this.dataDir, BUNDLE_STAMPS_FILE), `${JSON.stringify({ version: 1, bundles })}\n`, {
      mode: PRIVATE_FILE_MODE,
    });
  }
}

/** The cache file's JSON; null when it is missing, not a regular file, over {@link MAX_FILE_BYTES} or not JSON. */
export function readCacheFile(file: string): unknown {
  const into = emptyFileBytes();
  try {
    if (!readRegularFile(path.dirname(file), file, MAX_FILE_BYTES, into, CACHE_FILE_READING)) return null;
    return JSON.parse(into.buffer.toString('utf8', 0, into.length)) as unknown;
  } catch {
    return null;
  }
}

const CACHE_FILE_READING: RegularFileOptions = {
  followLinks: false,
  tooLarge: (file) => new DocumentRefusedError('DOCUMENT_TOO_LARGE', `${path.basename(file)}: larger than ${MAX_FILE_BYTES} bytes`),
};
