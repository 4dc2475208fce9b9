import { trackedFs } from '@loadout/files';

/** What one process may hold at most when its open-file limit reads as unlimited. */
const UNLIMITED_CAP = 1 << 20;
/** Descriptors always left to the rest of the process, before the half of what remains. */
const KEPT_FOR_THE_PROCESS = 1024;

/**
 * Counts the read-only descriptors the watch cache holds on unwatched documents, so that it never
 * takes what the rest of the process needs: at most `limit` (by default less than half the
 * process's open-file limit, {@link descriptorLimit}), and no more than it held when the system
 * first refused one (EMFILE, ENFILE). A descriptor not given is not an error: that document is
 * checked by a stat of its path, as before.
 */
export class DescriptorBudget {
  private count = 0;
  private ceiling: number;

  constructor(limit: number = descriptorLimit()) {
    this.ceiling = limit;
  }

  get held(): number {
    return this.count;
  }

  /** Whether one more descriptor may be opened. */
  allows(): boolean {
    return this.count < this.ceiling;
  }

  opened(): void {
    this.count += 1;
  }

  closed(): void {
    this.count -= 1;
  }

  /** The system refused a descriptor: no more than are held now are opened again. */
  refused(): void {
    this.ceiling = Math.min(this.ceiling, this.count);
  }
}

let shared: DescriptorBudget | undefined;

/**
 * The budget every watch cache of this process shares when it is given no limit of its own: the
 * open-file limit is the process's, so two caches (two containers in one process) must not each
 * take half of it.
 */
export function processDescriptorBudget(): DescriptorBudget {
  shared ??= new DescriptorBudget();
  return shared;
}

/**
 * How many descriptors the watch cache may hold: half of what the process's soft open-file limit
 * leaves after 1,024 (Node raises the soft limit to the hard one at start), so most of the limit
 * stays with the server's sockets, its database and its children's pipes. 0 when the limit cannot
 * be read (not Linux): every document is then checked by path.
 */
export function descriptorLimit(limitsText: string | null = readLimits()): number {
  const line = limitsText?.split('\n').find((row) => row.startsWith('Max open files'));
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  if (soft === undefined) return 0;
  const limit = soft === 'unlimited' ? UNLIMITED_CAP : Number(soft);
  if (!Number.isSafeInteger(limit)) return 0;
  return Math.max(0, Math.floor((Math.min(limit, UNLIMITED_CAP) - KEPT_FOR_THE_PROCESS) / 2));
}

function readLimits(): string | null {
  try {
    return trackedFs.readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return null;
  }
}
