/** How many roots the watch cache keeps, and for how long. */
export interface RootRetentionLimits {
  /**
   * Roots kept besides those of the session being opened, the most recently used ones. Every
   * `?project=` is a root of its own; the owner's and the plugins' roots are in every session.
   */
  readonly spareRoots: number;
  /** A root no session used for this long is released. */
  readonly idleMs: number;
}

export const DEFAULT_ROOT_RETENTION: RootRetentionLimits = { spareRoots: 16, idleMs: 10 * 60 * 1000 };

/**
 * Decides which roots a cache keeps: least recently used first out once more than `spareRoots`
 * are kept beyond the ones in use, and any root idle longer than `idleMs`. Knows nothing of what is
 * kept for a root; the cache asks it which roots to release.
 */
export class RootRetention {
  /** Root → when it was last used; a Map keeps insertion order, so the least recently used comes first. */
  private readonly used = new Map<string, number>();

  constructor(
    private readonly limits: RootRetentionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.used.size;
  }

  /** Marks `root` used now. */
  touch(root: string): void {
    this.used.delete(root);
    this.used.set(root, this.now());
  }

  forget(root: string): void {
    this.used.delete(root);
  }

  clear(): void {
    this.used.clear();
  }

  /**
   * The roots to release now, never one of `inUse`: those idle too long, then the least recently
   * used while more than `spareRoots` others remain.
   */
  expired(inUse: ReadonlySet<string> = new Set()): string[] {
    const oldest = this.now() - this.limits.idleMs;
    const release: string[] = [];
    let spare = 0;
    for (const root of this.used.keys()) if (!inUse.has(root)) spare += 1;
    for (const [root, at] of this.used) {
      if (inUse.has(root)) continue;
      if (at <= oldest || spare > this.limits.spareRoots) {
        release.push(root);
        spare -= 1;
      }
    }
    return release;
  }
}
