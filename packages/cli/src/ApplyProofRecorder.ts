import childProcess from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  APPLY_PROOF_FILE,
  BUNDLE_STAMPS_FILE,
  DATABASE_FILE,
  errorStamp,
  folderIdentity,
  formatProof,
  isChangedSince,
  LOCK_FOLDER,
  type ProofContext,
  proofKey,
  RACY_MS,
  stampFromLstat,
  stampOf,
  walStamp,
} from './applyProof.js';

/** The `fs` functions that only look (their first argument is the path looked at). */
const READERS = [
  'accessSync',
  'existsSync',
  'statSync',
  'readdirSync',
  'opendirSync',
  'readFileSync',
  'readlinkSync',
  'statfsSync',
] as const;
/** The `fs` functions that change something; a call on a path Loadout does not keep for itself leaves no proof. */
const WRITERS = [
  'appendFileSync',
  'chmodSync',
  'chownSync',
  'copyFileSync',
  'cpSync',
  'linkSync',
  'lchownSync',
  'lutimesSync',
  'mkdirSync',
  'mkdtempSync',
  'renameSync',
  'rmdirSync',
  'rmSync',
  'symlinkSync',
  'truncateSync',
  'unlinkSync',
  'utimesSync',
  'writeFileSync',
] as const;
/** Whatever else takes a path and cannot be followed here: callback and stream forms. */
const UNFOLLOWED = [
  'access',
  'appendFile',
  'copyFile',
  'cp',
  'createReadStream',
  'createWriteStream',
  'exists',
  'lstat',
  'mkdir',
  'open',
  'opendir',
  'readdir',
  'readFile',
  'readlink',
  'realpath',
  'rename',
  'rm',
  'rmdir',
  'stat',
  'unlink',
  'watch',
  'watchFile',
  'writeFile',
] as const;

type AnyFunction = (...args: unknown[]) => unknown;

/**
 * Records what a full `apply` looks at, then keeps the proof when the run allows one. Made before the
 * action touches anything; {@link finish} once it printed; {@link stop} always.
 */
export class ApplyProofRecorder {
  /** Each path looked at, stamped when it was first seen: before the run read it. */
  private readonly stamps = new Map<string, string>();
  /** The folders every real path asked for was found through (see {@link folderIdentity}), stamped so. */
  private readonly through = new Map<string, string>();
  private spoiled = false;
  private readonly restore: (() => void)[] = [];
  /** When the run began (ms): a stamp moved after this minus {@link RACY_MS} is not trusted. */
  private readonly began = Date.now();
  private readonly ownPrefixes: readonly string[];
  /** The key, taken before the run (which could change the environment it is made of). */
  private readonly key: string;

  /** @param readBefore files the command read before its action began (its package manifest). */
  constructor(
    private readonly context: ProofContext,
    readBefore: readonly string[],
  ) {
    const data = context.dataDir;
    // This process's own `/proc` files (its start time, which names it as a claimant) are new in every run.
    this.ownPrefixes = [
      path.join(data, LOCK_FOLDER),
      path.join(data, BUNDLE_STAMPS_FILE),
      path.join(data, APPLY_PROOF_FILE),
      `/proc/${process.pid}`,
      '/proc/self',
    ];
    this.key = proofKey(context);
    for (const file of readBefore) this.stampFirst(file);
    this.wrapFs();
  }

  /** Stamps `file` the first time the run looks at it, before the look (a stamp is never newer than what was read). */
  private stampFirst(file: string): void {
    if (!this.spoiled && !this.stamps.has(file)) this.stamps.set(file, stampOf(file));
  }

  /** Whether `file` is one Loadout keeps for itself (left out of the proof, writes allowed). */
  private isOwn(file: string): boolean {
    const data = this.context.dataDir;
    // Most paths are neither in the data folder nor in `/proc`: one test each.
    if (!file.startsWith(data) && !file.startsWith('/proc/')) return false;
    if (file === data || file === path.join(data, 'runtimes')) return true;
    // The caches are written atomically through a temporary file beside them.
    return this.ownPrefixes.some((prefix) => file === prefix || file.startsWith(`${prefix}.`) || file.startsWith(`${prefix}/`));
  }

  private note(raw: unknown, lists = false): void {
    const file = this.lookedAt(raw, lists);
    if (file !== null) this.stampFirst(file);
  }

  /** The path a call looks at, when it is to be stamped: not a descriptor, not Loadout's own. */
  private lookedAt(raw: unknown, lists: boolean): string | null {
    if (typeof raw === 'number') return null; // a descriptor: its path was noted when it was opened
    const file = absolute(raw);
    if (file === null) this.spoiled = true;
    else if (!this.isOwn(file)) return file;
    // The data folder's own times move with the lock, so it is left out; what is in it is not.
    else if (lists) this.spoiled = true;
    return null;
  }

  /** A path whose real path is asked for: it, and each folder above it. */
  private noteReal(raw: unknown): void {
    this.note(raw);
    if (typeof raw !== 'string') return;
    for (let folder = path.dirname(path.resolve(raw)); ; folder = path.dirname(folder)) {
      if (!this.spoiled && !this.through.has(folder)) this.through.set(folder, folderIdentity(folder));
      if (folder === path.dirname(folder)) break;
    }
  }

  private wrapFs(): void {
    for (const name of READERS) this.wrap(fs, name, (args) => this.note(args[0], name === 'readdirSync' || name === 'opendirSync'));
    // Most paths a plan looks at it `lstat`s itself first (a bundle known by its stamps): that
    // `lstat` is the look, and its answer the stamp, so the path is not stat'ed twice.
    const functions = fs as unknown as Record<string, unknown>;
    const lstat = fs.lstatSync;
    functions.lstatSync = (...args: unknown[]): unknown => {
      const file = this.lookedAt(args[0], false);
      const options = args[1] as { bigint?: boolean } | undefined;
      if (file === null || this.spoiled || this.stamps.has(file) || options?.bigint === true) {
        if (file !== null) this.stampFirst(file);
        return Reflect.apply(lstat, fs, args);
      }
      try {
        const stats = Reflect.apply(lstat, fs, args) as fs.Stats | undefined;
        this.stamps.set(file, stampFromLstat(file, stats));
        return stats;
      } catch (error) {
        this.stamps.set(file, errorStamp(error));
        throw error;
      }
    };
    this.restore.push(() => {
      functions.lstatSync = lstat;
    });
    // A real path depends on every folder on the way to it, and `realpathSync` looks at them
    // without going through the functions above.
    this.wrap(fs, 'realpathSync', (args) => this.noteReal(args[0]));
    this.wrap(fs.realpathSync, 'native', (args) => this.noteReal(args[0]));
    this.wrap(fs, 'openSync', (args) => {
      const flags = args[1];
      const writes = fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_APPEND;
      if (flags === undefined || flags === 'r' || (typeof flags === 'number' && (flags & writes) === 0)) this.note(args[0]);
      else this.changes(args[0], false);
    });
    for (const name of WRITERS) {
      this.wrap(fs, name, (args) => {
        this.changes(args[0], name === 'rmSync' || name === 'rmdirSync' || name === 'unlinkSync');
        if (name === 'renameSync' || name === 'copyFileSync' || name === 'cpSync' || name === 'linkSync' || name === 'symlinkSync')
          this.changes(args[1], false);
      });
    }
    for (const name of UNFOLLOWED) this.wrap(fs, name, (args) => this.unfollowed(args[0]));
    for (const name of Object.keys(fs.promises)) this.wrap(fs.promises, name, (args) => this.unfollowed(args[0]));
    // The proof keeps stdout alone: a run that writes to stderr (a warning) leaves none.
    this.wrap(process.stderr, 'write', () => {
      this.spoiled = true;
    });
    // A child process may read anything: a run that starts one leaves no proof.
    for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
      this.wrap(childProcess, name, () => {
        this.spoiled = true;
      });
    }
  }

  /**
   * Replaces the function `holder[name]` (when it is one) by one that calls `before` with its
   * arguments first; {@link stop} puts it back. What hangs off the function is kept (`realpathSync.native`).
   */
  private wrap(holder: object, name: string, before: (args: unknown[]) => void): void {
    const functions = holder as Record<string, unknown>;
    const original = functions[name];
    if (typeof original !== 'function') return;
    const replaced = (...args: unknown[]): unknown => {
      before(args);
      return Reflect.apply(original as AnyFunction, holder, args);
    };
    Object.assign(replaced, original);
    functions[name] = replaced;
    this.restore.push(() => {
      functions[name] = original;
    });
  }

  /**
   * A call that may change `raw`: fine on what Loadout keeps for itself, and a removal of nothing
   * (`rm -f` of a path that is not there) is a look at that path; anything else leaves no proof.
   */
  private changes(raw: unknown, removal: boolean): void {
    const file = absolute(raw);
    if (file !== null && this.isOwn(file)) return;
    if (file !== null && removal && stampOf(file) === '-') {
      if (!this.stamps.has(file)) this.stamps.set(file, '-');
      return;
    }
    this.spoiled = true;
  }

  /** A call this cannot follow (a callback or promise `fs` call): fine only on what Loadout keeps for itself. */
  private unfollowed(raw: unknown): void {
    const file = absolute(raw);
    if (file !== null && this.isOwn(file)) return;
    this.spoiled = true;
  }

  /** Puts `fs` back as it was. */
  stop(): void {
    for (const undo of this.restore.splice(0).reverse()) undo();
  }

  /**
   * Keeps the proof of a run that printed `stdout`, changed nothing and ended well (`provable`).
   * Writes nothing when the kept proof is this one already.
   */
  finish(stdout: string, provable: boolean): void {
    this.stop();
    const file = path.join(this.context.dataDir, APPLY_PROOF_FILE);
    const since = this.began - RACY_MS;
    const database = path.join(this.context.dataDir, DATABASE_FILE);
    const paths = new Map<string, string>();
    let sound = provable && !this.spoiled;
    if (sound) {
      // The database as it was before the run opened it (its mode is checked first), and its log
      // empty now; its `-shm` is SQLite's index of the log, which every connection rewrites, and
      // tells nothing the log does not.
      const databaseFiles = new Set([database, `${database}-wal`, `${database}-shm`, `${database}-journal`]);
      paths.set(database, this.stamps.get(database) ?? stampOf(database));
      paths.set(`${database}-wal`, walStamp(`${database}-wal`));
      paths.set(`${database}-journal`, stampOf(`${database}-journal`));
      if (paths.get(`${database}-wal`) !== 'empty' || paths.get(`${database}-journal`) !== '-') sound = false;
      const byPath = ([a]: [string, string], [b]: [string, string]): number => (a < b ? -1 : a > b ? 1 : 0);
      for (const [looked, stamp] of [...this.stamps].sort(byPath)) if (!databaseFiles.has(looked)) paths.set(looked, stamp);
      for (const [folder, stamp] of [...this.through].sort(byPath)) if (!paths.has(folder)) paths.set(folder, stamp);
      for (const stamp of paths.values()) if (isChangedSince(stamp, since)) sound = false;
    }
    // A proof that no longer holds is left as it is (the next check finds so): a refused run changes no file.
    const text = sound ? formatProof(this.key, stdout, paths) : null;
    if (text === null) return;
    let kept: string | null = null;
    try {
      kept = fs.readFileSync(file, 'utf8');
    } catch {
      kept = null;
    }
    if (kept === text) return;
    const temporary = `${file}.${process.pid}.tmp`;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(temporary, text, { mode: 0o600 });
    fs.renameSync(temporary, file);
  }
}

/**
 * The absolute, normal path a path argument names; null for anything else (a descriptor). A path
 * already absolute and normal (no empty, `.` or `..` step, no trailing separator) is what
 * `path.resolve` would return, and is taken as it is: most calls pass one.
 */
function absolute(raw: unknown): string | null {
  if (typeof raw === 'string') {
    const normal =
      raw.startsWith('/') &&
      !raw.includes('//') &&
      !raw.includes('/./') &&
      !raw.includes('/../') &&
      !raw.endsWith('/.') &&
      !raw.endsWith('/..') &&
      (raw.length === 1 || !raw.endsWith('/'));
    return normal ? raw : path.resolve(raw);
  }
  if (raw instanceof URL) return fileURLToPath(raw);
  if (Buffer.isBuffer(raw)) return path.resolve(raw.toString());
  return null;
}
