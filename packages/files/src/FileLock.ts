import fs from 'node:fs';
import path from 'node:path';
import { OperationFailedError } from './LoadoutError.js';
import { PRIVATE_FILE_MODE } from './ensurePrivateFolder.js';
import { isProcessAlive, processStartTime } from './processIdentity.js';
import { trackedFs } from './ReadLog.js';

/** The file inside a lock folder that names the process holding it: `<pid> <start time>`. */
const HOLDER_FILE = 'holder';

/**
 * The file system proper-lockfile works through, except that a lock folder is made with its
 * holder file in it (before proper-lockfile sets the folder's time, which it later checks is still
 * its own: a file written into the folder afterwards would change it and lose the lock), and
 * removing a lock folder removes the holder file too (proper-lockfile's `rmdir` needs it empty).
 * `fs`'s own properties are copied as they are, its getters as getters: a spread would call them,
 * and they load `fs.promises`, the file streams, `fs.Dir` and the watchers (with readline and
 * Node's streams), 11 of Node's modules, as the kernel loads, in commands that take no lock.
 */
const lockFs: typeof fs = Object.assign(Object.defineProperties({}, Object.getOwnPropertyDescriptors(fs)) as typeof fs, {
  mkdir: (dir: string, callback: (error: NodeJS.ErrnoException | null) => void): void => {
    fs.mkdir(dir, (error) => {
      if (error !== null) {
        callback(error);
        return;
      }
      // Without a holder file the lock is still whole; a waiter then goes by its age.
      fs.writeFile(
        path.join(dir, HOLDER_FILE),
        `${process.pid} ${processStartTime(process.pid) ?? ''}\n`,
        { mode: PRIVATE_FILE_MODE },
        () => callback(null),
      );
    });
  },
  rmdir: (dir: string, callback: (error: NodeJS.ErrnoException | null) => void): void => {
    fs.rm(path.join(dir, HOLDER_FILE), { force: true }, () => fs.rmdir(dir, callback));
  },
  rmdirSync: (dir: string): void => {
    trackedFs.rmSync(path.join(dir, HOLDER_FILE), { force: true });
    trackedFs.rmdirSync(dir);
  },
});

/** Who holds a lock folder, as its holder file says; null when it names nobody (yet). */
interface LockHolder {
  readonly pid: number;
  readonly start: string | null;
  readonly text: string;
}

function readHolder(lockDir: string): LockHolder | null {
  let text: string;
  try {
    text = trackedFs.readFileSync(path.join(lockDir, HOLDER_FILE), 'utf8');
  } catch {
    return null;
  }
  const [pidText, start] = text.trim().split(' ');
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return { pid, start: start === undefined || start === '' ? null : start, text };
}

/** Whether the process a holder file names is still the one running under that pid. */
function holderIsAlive(holder: LockHolder): boolean {
  if (!isProcessAlive(holder.pid)) return false;
  return holder.start === null || processStartTime(holder.pid) === holder.start;
}

/**
 * Removes a lock folder whose holder is gone. The folder is first renamed aside, then removed only
 * if it still names that dead holder, so a lock another process took in between is put back.
 */
function removeDeadLock(lockDir: string, dead: LockHolder): void {
  const aside = `${lockDir}.dead-${process.pid}-${Date.now()}`;
  try {
    trackedFs.renameSync(lockDir, aside);
  } catch {
    return;
  }
  if (readHolder(aside)?.text === dead.text) {
    trackedFs.rmSync(aside, { recursive: true, force: true });
    return;
  }
  try {
    trackedFs.renameSync(aside, lockDir);
  } catch {
    // A third process locked it meanwhile; the renamed lock's holder loses it as compromised.
  }
}

/** How long to wait for a lock another process holds: `retries` attempts, backing off. */
export interface FileLockRetries {
  readonly retries: number;
  /** Each wait is this many times the one before. */
  readonly factor: number;
  readonly minTimeout: number;
  readonly maxTimeout: number;
  /** Spread the waits, so two waiters do not retry in step. */
  readonly randomize: boolean;
}

export interface FileLockOptions {
  /**
   * Milliseconds after which a lock its holder stopped refreshing counts as left by a dead
   * process and is taken over. At least 2000; default 10 000.
   */
  readonly stale?: number;
  /** How often a held lock is refreshed, in milliseconds; default half of `stale`, at least 1000. */
  readonly update?: number;
  /** How long to wait while another process holds the lock; default: not at all. */
  readonly retries?: FileLockRetries;
  /**
   * Called as soon as a held lock is lost (its folder removed or replaced, or not refreshed in
   * time), when another process may already hold it. The lock's `compromised` says so either way.
   */
  readonly onCompromised?: (error: Error) => void;
}

/** An inter-process lock held on a target: the folder `<target>.lock`. */
export interface FileLock {
  /** The lock folder. */
  readonly path: string;
  /** Why the lock was lost while held; null while it is whole. */
  readonly compromised: Error | null;
  /** Gives the lock up. Rejects when it was lost or released already. */
  release(): Promise<void>;
}

/**
 * A lock that could not be taken or was lost. `code` says which: `FILE_LOCK_BUSY` (another
 * process, still running, held it for longer than the caller waits; `holder` is its pid),
 * `FILE_LOCK_FAILED` (the lock folder could not be made), `FILE_LOCK_COMPROMISED` (lost while the
 * work ran). `cause` is proper-lockfile's error.
 */
export class FileLockError extends OperationFailedError {
  /** The pid of the process holding the lock, when it is known (`FILE_LOCK_BUSY`). */
  holder: number | null = null;
}

/**
 * Takes the inter-process lock of `target` (proper-lockfile's `<target>.lock` folder, refreshed
 * while held, with a `holder` file naming this process), creating the folder that holds it. A
 * lock whose holder process is gone (killed before it could give the lock up) is taken over at
 * once; one left without a holder file counts as stale once it is `stale` milliseconds old. For a
 * lock held as long as a process runs; a piece of work that takes a lock and gives it up uses
 * {@link withFileLock}.
 *
 * @example
 * const lock = await acquireFileLock(path.join(dataDir, 'server'), { stale: 5000, update: 1000, onCompromised: stop });
 * // … serve …
 * await lock.release();
 */
export async function acquireFileLock(target: string, options: FileLockOptions = {}): Promise<FileLock> {
  let compromised: Error | null = null;
  let release: () => Promise<void>;
  const lockDir = `${target}.lock`;
  // Loaded with the first lock: proper-lockfile brings graceful-fs, which patches `fs` as it loads,
  // and a command that takes no lock (a session, help) should not pay for that.
  const { default: lockfile } = await import('proper-lockfile');
  const take = (retries: FileLockRetries | undefined): Promise<() => Promise<void>> =>
    lockfile.lock(target, {
      realpath: false,
      fs: lockFs,
      ...(options.stale === undefined ? {} : { stale: options.stale }),
      ...(options.update === undefined ? {} : { update: options.update }),
      ...(retries === undefined ? {} : { retries: { ...retries } }),
      // proper-lockfile's default throws from a timer, which would end the process.
      onCompromised: (error) => {
        compromised = error;
        options.onCompromised?.(error);
      },
    });
  try {
    trackedFs.mkdirSync(path.dirname(target), { recursive: true });
    try {
      release = await take(undefined);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
      // A lock whose holder is known to be gone is stale now, whatever its age.
      const holder = readHolder(lockDir);
      if (holder !== null && !holderIsAlive(holder)) removeDeadLock(lockDir, holder);
      release = await take(options.retries);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      const holder = readHolder(lockDir);
      const busy = new FileLockError(
        'FILE_LOCK_BUSY',
        `${target} is locked by ${holder === null ? 'another process' : `process ${holder.pid}, still running`}`,
        { cause: error },
      );
      busy.holder = holder?.pid ?? null;
      throw busy;
    }
    throw new FileLockError('FILE_LOCK_FAILED', `cannot lock ${target}: ${(error as Error).message}`, { cause: error });
  }
  return {
    path: lockDir,
    get compromised() {
      return compromised;
    },
    release,
  };
}

/**
 * Runs `work` holding the inter-process lock of `target`, then gives the lock up whatever
 * happened. A lock that cannot be taken, or that was lost while `work` ran (reported once `work`
 * returns: what it did may have raced another holder), is a {@link FileLockError}, or the caller's
 * own error when `lockError` maps it. An error from `work` itself passes through unchanged.
 *
 * @example
 * await withFileLock(configFile, () => rewrite(configFile), {
 *   stale: 15_000,
 *   retries: { retries: 60, factor: 1.3, minTimeout: 20, maxTimeout: 250, randomize: true },
 *   lockError: (error) => new ConfigLockedError(configFile, { cause: error }),
 * });
 */
export async function withFileLock<T>(
  target: string,
  work: () => T | Promise<T>,
  options: FileLockOptions & { readonly lockError?: (error: FileLockError) => Error } = {},
): Promise<T> {
  const fail = (error: unknown): unknown =>
    error instanceof FileLockError && options.lockError !== undefined ? options.lockError(error) : error;
  let lock: FileLock;
  try {
    lock = await acquireFileLock(target, options);
  } catch (error) {
    throw fail(error);
  }
  try {
    const result = await work();
    if (lock.compromised !== null) {
      throw fail(
        new FileLockError('FILE_LOCK_COMPROMISED', `the lock of ${target} was lost while it was held`, { cause: lock.compromised }),
      );
    }
    return result;
  } finally {
    // A lock that was lost is released already; the work's outcome is what the caller needs.
    await lock.release().catch(() => undefined);
  }
}
