import path from 'node:path';
import {
  acquireFileLock,
  type FileLock,
  FileLockError,
  type FileLockOptions,
  narrowMode,
  PRIVATE_FILE_MODE,
  processStartTime,
  trackedFs,
} from '@loadout/files';
import { ServerAlreadyRunningError, ServerStartError } from './ServerErrors.js';

/** Held while a server owns a data folder. */
export interface ServerLock {
  /** Says where the server listens (`<dataDir>/server.url`), for commands that talk to it. */
  announce(url: string): void;
  release(): Promise<void>;
}

/** The lock is the folder `server.lock` in the data folder. */
const LOCK_TARGET = 'server';
const PID_FILE = 'server.pid';
/** Where the server holding the lock listens; gone with the lock. */
const URL_FILE = 'server.url';
/** proper-lockfile's shortest staleness: a lock not refreshed for this long belonged to a dead process. */
const STALE_MS = 5000;

/**
 * Takes the data folder's server lock: one server per data folder, because a server treats every
 * job marked running as left behind by a dead one. A lock whose holder is alive is refused at
 * once; a lock left by a killed server is taken over at once (the kernel's lock knows its holder),
 * or, when it names no holder (a lock of an older Loadout), once it is stale (a few seconds).
 *
 * @param onLost called if the lock is lost while held (its file was removed or replaced); the
 * server must stop then, since another may have started.
 */
export async function acquireServerLock(dataDir: string, onLost: (error: Error) => void): Promise<ServerLock> {
  const target = path.join(dataDir, LOCK_TARGET);
  const options: FileLockOptions = { stale: STALE_MS, update: 1000, onCompromised: onLost };
  let lock: FileLock;
  try {
    lock = await acquireFileLock(target, options);
  } catch (error) {
    if (!isBusy(error)) throw lockFailed(dataDir, error);
    if ((error as FileLockError).holder !== null) throw new ServerAlreadyRunningError(dataDir);
    try {
      // A lock that names no holder: wait until it is stale.
      lock = await acquireFileLock(target, {
        ...options,
        retries: { retries: 16, factor: 1, minTimeout: 500, maxTimeout: 500, randomize: false },
      });
    } catch (again) {
      if (isBusy(again)) throw new ServerAlreadyRunningError(dataDir);
      throw lockFailed(dataDir, again);
    }
  }
  const pidFile = path.join(dataDir, PID_FILE);
  trackedFs.writeFileSync(pidFile, `${process.pid} ${processStartTime(process.pid) ?? ''}\n`, { mode: PRIVATE_FILE_MODE });
  narrowMode(pidFile, PRIVATE_FILE_MODE);
  const urlFile = path.join(dataDir, URL_FILE);
  return {
    announce(url) {
      trackedFs.writeFileSync(urlFile, `${url}\n`, { mode: PRIVATE_FILE_MODE });
      narrowMode(urlFile, PRIVATE_FILE_MODE);
    },
    async release() {
      trackedFs.rmSync(urlFile, { force: true });
      trackedFs.rmSync(pidFile, { force: true });
      await lock.release();
    },
  };
}

function isBusy(error: unknown): boolean {
  return error instanceof FileLockError && error.code === 'FILE_LOCK_BUSY';
}

function lockFailed(dataDir: string, error: unknown): ServerStartError {
  return new ServerStartError(`cannot lock the data folder ${dataDir}: ${(error as Error).message}`, { cause: error });
}

/**
 * Where the server of this data folder said it listens, or null when none did. A server that was
 * killed leaves its address behind: whoever reads it must be ready to find nobody there.
 */
export function announcedServerUrl(dataDir: string): string | null {
  try {
    const url = trackedFs.readFileSync(path.join(dataDir, URL_FILE), 'utf8').trim();
    return /^http:\/\/[^\s/]+$/.test(url) ? url : null;
  } catch {
    return null;
  }
}
