import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { LstatAnswer, ReadLog } from '@loadout/files';
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

/**
 * Turns what a full `apply` looked at into the proof, and keeps it when the run allows one. It is
 * the {@link ReadLog} the command makes current around its action (`withReadLog`): every tracked
 * `fs` call the action makes tells it, and nothing outside the action does. Made before the action
 * touches anything; {@link finish} once it printed; {@link stop} always.
 */
export class ApplyProofRecorder implements ReadLog {
  /** Each path looked at, stamped when it was first seen: before the run read it. */
  private readonly stamps = new Map<string, string>();
  /** The folders every real path asked for was found through (see {@link folderIdentity}), stamped so. */
  private readonly through = new Map<string, string>();
  private isSpoiled = false;
  /** Set by {@link stop}: what is told after the action ended is no part of it. */
  private stopped = false;
  /** When the run began (ms): a stamp moved after this minus {@link RACY_MS} is not trusted. */
  private readonly began = Date.now();
  private readonly ownPrefixes: readonly string[];
  /** The key, taken before the run (which could change the environment it is made of). */
  private readonly key: string;
  /** A warning Node prints goes to stderr, which the proof does not keep. */
  private readonly onWarning = (): void => this.spoiled('a warning on stderr');

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
    process.on('warning', this.onWarning);
  }

  /** Whether the log still takes what it is told: not spoiled, not stopped. */
  private get listening(): boolean {
    return !this.isSpoiled && !this.stopped;
  }

  /** Stamps `file` the first time the run looks at it, before the look (a stamp is never newer than what was read). */
  private stampFirst(file: string): void {
    if (this.listening && !this.stamps.has(file)) this.stamps.set(file, stampOf(file));
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

  looked(file: string, answer?: LstatAnswer): void {
    if (!this.listening || this.isOwn(file)) return;
    // Most paths a plan looks at it `lstat`s itself first (a bundle known by its stamps): that
    // `lstat`'s answer is the stamp, so the path is not stat'ed twice.
    if (answer === undefined || this.stamps.has(file)) this.stampFirst(file);
    else this.stamps.set(file, 'error' in answer ? errorStamp(answer.error) : stampFromLstat(file, answer.stats));
  }

  listed(folder: string): void {
    // The data folder's own times move with the lock, so it is left out; what is in it is not.
    if (this.isOwn(folder)) this.spoiled('a listing of a folder Loadout keeps for itself');
    else this.stampFirst(folder);
  }

  /** A path whose real path is asked for: it, and each folder above it. */
  real(file: string): void {
    this.looked(file);
    for (let folder = path.dirname(file); ; folder = path.dirname(folder)) {
      if (this.listening && !this.through.has(folder)) this.through.set(folder, folderIdentity(folder));
      if (folder === path.dirname(folder)) break;
    }
  }

  /**
   * A change to `file`: fine on what Loadout keeps for itself, and a removal of nothing (`rm -f` of
   * a path that is not there) is a look at that path; anything else leaves no proof.
   */
  changed(file: string, removal: boolean): void {
    if (!this.listening || this.isOwn(file)) return;
    if (removal && stampOf(file) === '-') {
      if (!this.stamps.has(file)) this.stamps.set(file, '-');
      return;
    }
    this.spoiled(`a change to ${file}`);
  }

  spoiled(_reason: string): void {
    if (!this.stopped) this.isSpoiled = true;
  }

  /** Takes nothing more: what the process does after the action is not the run's. */
  stop(): void {
    this.stopped = true;
    process.off('warning', this.onWarning);
  }

  /**
   * Keeps the proof of a run that printed `stdout`, changed nothing and ended well (`provable`).
   * Writes nothing when the kept proof is this one already.
   */
  finish(stdout: string, provable: boolean): void {
    this.stop();
    // The native code the run loaded (SQLite's addon) is read by Node's module loader, which no
    // log hears: it is stamped as a file the run read. Its stamp is taken now, after the load; a
    // change during the run moved its change time, which the racy window refuses.
    for (const addon of Object.keys(createRequire(path.join(this.context.cwd, 'proof.js')).cache)) {
      if (addon.endsWith('.node') && !this.stamps.has(addon)) this.stamps.set(addon, stampOf(addon));
    }
    const file = path.join(this.context.dataDir, APPLY_PROOF_FILE);
    const since = this.began - RACY_MS;
    const database = path.join(this.context.dataDir, DATABASE_FILE);
    const paths = new Map<string, string>();
    let sound = provable && !this.isSpoiled;
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
