import fs from 'node:fs';
import { type Diagnostic } from '@loadout/kernel';
import { InvalidInputError, trackedFs } from '@loadout/files';

/** What the system said when it refused a watch, and how many this process held then. */
interface Refusal {
  readonly code: string;
  readonly held: number;
}

/**
 * Hands out file watches: at most `limit` of them (`LOADOUT_WATCH_BUDGET`), and no more than the
 * system gave before it first refused one (ENOSPC: the user's inotify watches are spent; EMFILE:
 * their inotify instances). Folders (roots, kind folders) may use all of it; entry folders leave a
 * tenth spare, so a root opened later still gets its folders watched. A watch not given is not an
 * error: the cache checks that folder by stat instead, and {@link diagnostics} says so once.
 */
export class WatchBudget {
  private readonly open = new Set<fs.FSWatcher>();
  private ceiling: number;
  private refusal: Refusal | null = null;
  private spent = false;

  constructor(private readonly limit: number = Number.POSITIVE_INFINITY) {
    this.ceiling = limit;
  }

  get held(): number {
    return this.open.size;
  }

  /** Whether an entry folder may be given a watch now. */
  allowsEntry(): boolean {
    const spare = Number.isFinite(this.ceiling) ? Math.max(1, Math.floor(this.ceiling / 10)) : 0;
    if (this.open.size < this.ceiling - spare) return true;
    this.spent = true;
    return false;
  }

  /**
   * Watches `dir`, or returns null when the budget is spent or the system refuses. A watcher that
   * fails later (its folder went away, the system dropped it) is closed and `onError` called.
   */
  watch(dir: string, priority: 'structure' | 'entry', onChange: (name: string | null) => void, onError: () => void): fs.FSWatcher | null {
    if (priority === 'entry' ? !this.allowsEntry() : this.open.size >= this.ceiling) {
      this.spent = true;
      return null;
    }
    let watcher: fs.FSWatcher;
    try {
      watcher = fs.watch(dir, { persistent: false }, (_event, name) => onChange(name ?? null));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (code === 'ENOSPC' || code === 'EMFILE') {
        this.refusal = { code, held: this.open.size };
        this.ceiling = this.open.size;
      }
      return null;
    }
    this.open.add(watcher);
    watcher.on('error', () => {
      this.close(watcher);
      onError();
    });
    return watcher;
  }

  close(watcher: fs.FSWatcher | null): void {
    if (watcher === null) return;
    watcher.close();
    this.open.delete(watcher);
  }

  /** One diagnostic when the system refused a watch (with its limit and how to raise it), else one when the budget is spent. */
  diagnostics(): Diagnostic[] {
    if (this.refusal !== null) {
      const { code, held } = this.refusal;
      const setting = code === 'EMFILE' ? 'max_user_instances' : 'max_user_watches';
      const limit = inotifyLimit(setting);
      return [
        {
          code: 'WATCH_LIMIT_REACHED',
          severity: 'warning',
          message:
            `the system refused a file watch (${code}) after ${held} held by this process: fs.inotify.${setting} is ${limit ?? 'unknown'}, shared by every program of this user. ` +
            `Folders left unwatched are checked at each open instead, which is slower but never stale. ` +
            `Raise it with: sudo sysctl fs.inotify.${setting}=524288 (and in /etc/sysctl.d to keep it), or cap Loadout with LOADOUT_WATCH_BUDGET.`,
        },
      ];
    }
    if (this.spent && Number.isFinite(this.limit)) {
      return [
        {
          code: 'WATCH_BUDGET_SPENT',
          severity: 'info',
          message: `LOADOUT_WATCH_BUDGET=${this.limit} is spent: folders beyond it are checked at each open instead of watched, which is slower but never stale`,
        },
      ];
    }
    return [];
  }
}

/**
 * The watch budget `LOADOUT_WATCH_BUDGET` sets: a whole number of watches, 0 for none; undefined
 * (no cap) when unset or empty.
 */
export function watchBudgetFrom(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const value = env.LOADOUT_WATCH_BUDGET;
  if (value === undefined || value.trim() === '') return undefined;
  if (!/^\d+$/.test(value.trim())) {
    throw new InvalidInputError(
      'WATCH_BUDGET_INVALID',
      `LOADOUT_WATCH_BUDGET must be a whole number of file watches (0 or more), not "${value}"`,
    );
  }
  return Number(value.trim());
}

/** The lower of the system's and this user namespace's inotify limit, or null when neither can be read. */
function inotifyLimit(setting: 'max_user_watches' | 'max_user_instances'): number | null {
  const values: number[] = [];
  for (const file of [
    `/proc/sys/fs/inotify/${setting}`,
    `/proc/sys/user/max_inotify_${setting === 'max_user_watches' ? 'watches' : 'instances'}`,
  ]) {
    try {
      const value = Number(trackedFs.readFileSync(file, 'utf8').trim());
      if (Number.isFinite(value)) values.push(value);
    } catch {
      // not Linux, or not readable: the message says unknown
    }
  }
  return values.length === 0 ? null : Math.min(...values);
}
