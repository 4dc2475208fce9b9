import fs from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { OperationFailedError } from './LoadoutError.js';

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
 * process held it for longer than the caller waits), `FILE_LOCK_FAILED` (the lock folder could not
 * be made), `FILE_LOCK_COMPROMISED` (lost while the work ran). `cause` is proper-lockfile's error.
 */
export class FileLockError extends OperationFailedError {}

/**
 * Takes the inter-process lock of `target` (proper-lockfile's `<target>.lock` folder, refreshed
 * while held), creating the folder that holds it. For a lock held as long as a process runs; a
 * piece of work that takes a lock and gives it up uses {@link withFileLock}.
 *
 * @example
 * const lock = await acquireFileLock(path.join(dataDir, 'server'), { stale: 5000, update: 1000, onCompromised: stop });
 * // … serve …
 * await lock.release();
 */
export async function acquireFileLock(target: string, options: FileLockOptions = {}): Promise<FileLock> {
  let compromised: Error | null = null;
  let release: () => Promise<void>;
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    release = await lockfile.lock(target, {
      realpath: false,
      ...(options.stale === undefined ? {} : { stale: options.stale }),
      ...(options.update === undefined ? {} : { update: options.update }),
      ...(options.retries === undefined ? {} : { retries: { ...options.retries } }),
      // proper-lockfile's default throws from a timer, which would end the process.
      onCompromised: (error) => {
        compromised = error;
        options.onCompromised?.(error);
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new FileLockError('FILE_LOCK_BUSY', `${target} is locked by another process`, { cause: error });
    }
    throw new FileLockError('FILE_LOCK_FAILED', `cannot lock ${target}: ${(error as Error).message}`, { cause: error });
  }
  return {
    path: `${target}.lock`,
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
  const fail = (error: unknown): unknown => (error instanceof FileLockError && options.lockError !== undefined ? options.lockError(error) : error);
  let lock: FileLock;
  try {
    lock = await acquireFileLock(target, options);
  } catch (error) {
    throw fail(error);
  }
  try {
    const result = await work();
    if (lock.compromised !== null) {
      throw fail(new FileLockError('FILE_LOCK_COMPROMISED', `the lock of ${target} was lost while it was held`, { cause: lock.compromised }));
    }
    return result;
  } finally {
    // A lock that was lost is released already; the work's outcome is what the caller needs.
    await lock.release().catch(() => undefined);
  }
}
