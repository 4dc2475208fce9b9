// A proof that `loadout apply` with nothing to change would print again what it printed last time.
//
// A full `apply` (one that wrote nothing) records every path the command looked at while it ran —
// every file and folder the session, the plan and the applier read, listed, stat'ed or checked —
// with each one's stamp, taken after the run, and keeps them beside what it printed, keyed by
// everything else the command depends on: its arguments, working folder, environment, user,
// whether stdout is a terminal, Node and this very build. The next `apply` with the same key `lstat`s those paths; when every
// stamp is the same, every byte the command read is the same, so it prints the kept output and
// writes nothing, without loading the command line at all (main.ts asks before the bundle loads).
//
// Sound by these rules, each taken so that any doubt means the full plan:
// - Recorded, not listed by hand: the action runs with the recorder as its current `ReadLog`
//   (@loadout/files), and every path-taking call Loadout's code makes goes through `trackedFs`,
//   which tells it (scripts/check-reads.mjs forbids the rest; a test's oracle watching `fs` itself
//   holds the log to what was really read). A call that could change anything (a write, a rename,
//   a removal of something that is there) or anything the log cannot follow (a child process, a
//   line on stderr, a warning) leaves no proof.
// - Stamps never newer than the bytes read: a stamp of anything changed (mtime or ctime) later
//   than `RACY_MS` before the run began is not trusted, so no proof is kept; the change time
//   cannot be set back, so a stamp older than the run is of the bytes the run read.
// - The database is stamped by its files: `loadout.db` itself and its write-ahead log, which must
//   be missing or empty (a write sits in the log until a checkpoint writes the database file).
//   With a database URL (PostgreSQL) there is no proof.
// - What only Loadout itself writes for its own sake is left out: the data folder's own entry (its
//   times move with the lock), the lock, the bundle-stamps cache and this proof.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Where the proof is kept, inside the data folder. */
export const APPLY_PROOF_FILE = path.join('runtimes', 'apply-proof');
export const BUNDLE_STAMPS_FILE = path.join('runtimes', 'bundle-stamps.json');
export const LOCK_FOLDER = 'runtimes.lock';
export const DATABASE_FILE = 'loadout.db';
/** A stamp changed less than this before the run began is not trusted (as `RACY_MS` in the kernel). */
export const RACY_MS = 1000;
const PROOF_VERSION = 1;
/** The largest proof file read. */
const MAX_PROOF_BYTES = 16 * 1024 * 1024;

/** What a proof needs to know of the command and the build it runs. */
export interface ProofContext {
  /** `process.argv` as given. */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** The build's identity (the bundle's content hash); no proof without one. */
  readonly build: string;
  /** The data folder, as the command resolved it. */
  readonly dataDir: string;
  /** Whether stdout is a terminal: what is printed there is coloured then (the found project's note). */
  readonly stdoutIsTerminal: boolean;
}

/**
 * A proof as kept: a header line (`loadout-apply-proof 1 <key> <length of the output>`), the
 * output itself, then one `<stamp>\t<path>` line per path. Lines, not JSON: parsing JSON of ~2,000
 * paths cost more than their `lstat`s on a loaded machine.
 */
const HEADER = /^loadout-apply-proof 1 ([0-9a-f]{64}) (\d+)$/;

/** The text of a proof; null when a path holds a tab or a line break (such a run keeps no proof). */
export function formatProof(key: string, stdout: string, stamps: ReadonlyMap<string, string>): string | null {
  const lines = [`loadout-apply-proof ${PROOF_VERSION} ${key} ${stdout.length}\n`, stdout];
  for (const [file, stamp] of stamps) {
    if (/[\t\n]/.test(file)) return null;
    lines.push(`${stamp}\t${file}\n`);
  }
  return lines.join('');
}

/** What {@link formatProof} wrote; null when the text is anything else. */
export function parseProof(text: string): { readonly key: string; readonly stdout: string; readonly stamps: [string, string][] } | null {
  const headerEnd = text.indexOf('\n');
  const header = HEADER.exec(text.slice(0, Math.max(headerEnd, 0)));
  if (header === null) return null;
  const stdoutEnd = headerEnd + 1 + Number(header[2]);
  if (stdoutEnd > text.length) return null;
  const stamps: [string, string][] = [];
  for (let at = stdoutEnd; at < text.length; ) {
    const tab = text.indexOf('\t', at);
    const end = text.indexOf('\n', at);
    if (tab < 0 || end < 0 || tab > end) return null;
    stamps.push([text.slice(tab + 1, end), text.slice(at, tab)]);
    at = end + 1;
  }
  return { key: header[1] as string, stdout: text.slice(headerEnd + 1, stdoutEnd), stamps };
}

// A stamp is no look of the run's own: taken with `fs` itself, which tells no log.
const lstatSync = fs.lstatSync;
const realpathNative = fs.realpathSync.native;

/** The key of everything but files the command's output depends on. */
export function proofKey(context: ProofContext): string {
  const env = Object.entries(context.env)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const facts = [
    context.argv,
    env,
    context.cwd,
    context.build,
    context.stdoutIsTerminal,
    process.version,
    process.execPath,
    process.platform,
    process.arch,
    process.getuid?.() ?? null,
    process.getgid?.() ?? null,
  ];
  return crypto.createHash('sha256').update(JSON.stringify(facts)).digest('hex');
}

/** A path's stamp: its `lstat` (and what it leads to when it is a link), or what went wrong. */
export function stampOf(file: string): string {
  let stats: fs.Stats | undefined;
  try {
    stats = lstatSync(file, { throwIfNoEntry: false });
  } catch (error) {
    return errorStamp(error);
  }
  return stampFromLstat(file, stats);
}

/**
 * The stamp of `file` from what its `lstat` gave (undefined: missing): device, inode, mode, size,
 * modification and change time (ms, with their fraction, as the kernel's stamps).
 */
export function stampFromLstat(file: string, stats: fs.Stats | undefined): string {
  if (stats === undefined) return '-';
  const own = `${stats.dev}:${stats.ino}:${stats.mode}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
  return stats.isSymbolicLink() ? `${own}>${targetStamp(file)}` : own;
}

/** The stamp of a path whose `lstat` failed: missing, as {@link stampOf} says it, or `!` and why. */
export function errorStamp(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? '-' : `!${code ?? 'error'}`;
}

/** The stamp of what a link leads to, or `!` with why it leads nowhere. */
function targetStamp(link: string): string {
  try {
    return stampOf(realpathNative(link));
  } catch (error) {
    return errorStamp(error);
  }
}

/**
 * The stamp of a folder a real path was found through: what it is (device, inode, type and
 * permissions, owner), not its times, which move whenever an entry in it comes or goes (`/tmp`
 * moves all the time). It is what decides where a path leads: a folder replaced by a link or by
 * another folder, or one that lost its search permission, has another stamp. Anything else
 * than a folder gets its whole stamp. Starts with `=`.
 */
export function folderIdentity(file: string): string {
  let stats: fs.Stats | undefined;
  try {
    stats = lstatSync(file, { throwIfNoEntry: false });
  } catch (error) {
    return `=${errorStamp(error)}`;
  }
  if (stats === undefined) return '=-';
  return stats.isDirectory() ? `=${stats.dev}/${stats.ino}/${stats.mode}/${stats.uid}/${stats.gid}` : `=${stampFromLstat(file, stats)}`;
}

/** The stamp of the database's write-ahead log: missing or empty are the same (nothing in it). */
export function walStamp(file: string): string {
  const stats = lstatSync(file, { throwIfNoEntry: false });
  return stats === undefined || (stats.isFile() && stats.size === 0) ? 'empty' : stampOf(file);
}

/** Whether any time in `stamp` is later than `since` (ms): too recent for the stamp to be trusted. */
export function isChangedSince(stamp: string, since: number): boolean {
  for (const part of stamp.replace(/^=/, '').split('>')) {
    const fields = part.split(':');
    if (fields.length !== 6) continue;
    if (Number(fields[4]) > since || Number(fields[5]) > since) return true;
  }
  return false;
}

/** The kept output when the proof for this command holds; null at any doubt. */
export function provenOutput(context: ProofContext): string | null {
  let proof: ReturnType<typeof parseProof>;
  try {
    const file = path.join(context.dataDir, APPLY_PROOF_FILE);
    const stats = fs.lstatSync(file, { throwIfNoEntry: false });
    if (stats === undefined || !stats.isFile() || stats.size > MAX_PROOF_BYTES) return null;
    proof = parseProof(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  if (proof === null || proof.key !== proofKey(context)) return null;
  const wal = `${path.join(context.dataDir, DATABASE_FILE)}-wal`;
  for (const [file, stamp] of proof.stamps) {
    const actual = stamp.startsWith('=') ? folderIdentity(file) : file === wal ? walStamp(file) : stampOf(file);
    if (actual !== stamp) return null;
  }
  return proof.stdout;
}

/** The data folder as the command resolves it (`resolvePlaces` in the kernel, for one that has not loaded it). */
export function proofDataDir(env: Readonly<Record<string, string | undefined>>, defaultHome: string, cwd: string): string {
  const fromEnv = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : path.resolve(cwd, value);
  };
  return fromEnv('LOADOUT_DATA_DIR') ?? path.join(fromEnv('LOADOUT_HOME') ?? path.resolve(defaultHome), '.loadout');
}
