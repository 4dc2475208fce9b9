import type { Session, SessionLoader } from '@loadout/kernel';
import { exposeSession, type SessionExposure } from './SessionExposure.js';
import { TaskInputSchemas } from '@loadout/tasks';

/** How many projects' exposures are kept at once; the least recently used goes first. */
const KEPT_PROJECTS = 8;
/** How often the workspace is checked for changes while anyone listens. */
export const DEFAULT_WATCH_INTERVAL_MS = 300;

interface Kept {
  readonly exposure: SessionExposure;
  /** The workspace stamp it was derived under; null when it may not be trusted again. */
  readonly stamp: string | null;
}

/**
 * The session as it is at this moment, for MCP, per project. What a session shows depends on the
 * files under its roots (watched by the kernel's `FolderScanCache`) and on rows in the database
 * (plugins, capability switches), possibly written by another process. Both are summed up in a
 * cheap stamp, `SessionLoader.changeStamp`. An exposure is
 * reused while the stamp has not moved, and derived again from a fresh session when it has; so a
 * quiet workspace answers lists without opening a session, and any change is seen at the next
 * request. Without a watch cache (a one-shot command) every request opens a session.
 */
export class LiveExposures {
  private readonly kept = new Map<string, Kept>();
  private readonly pending = new Map<string, Promise<SessionExposure>>();
  private readonly schemas = new TaskInputSchemas();
  private readonly listeners = new Set<() => void>();
  /** Sessions a running call holds, by how many calls hold each; one let go meanwhile is disposed at the last release. */
  private readonly holds = new Map<Session, number>();
  private readonly letGo = new Set<Session>();
  /** The stamp each exposure was derived under, when there was one. */
  private readonly stamps = new WeakMap<SessionExposure, string>();
  private timer: NodeJS.Timeout | null = null;
  private lastSeen: string | null = null;

  constructor(
    private readonly sessions: SessionLoader,
    private readonly intervalMs = DEFAULT_WATCH_INTERVAL_MS,
  ) {}

  /** The exposure of `project`'s session (a real path, or null for the global level only) as it is now. */
  async current(project: string | null): Promise<SessionExposure> {
    const loader = this.sessions;
    // Calls that arrive together share the first check of the disk that starts after all of them came.
    const arrived = loader.ticket();
    await loader.settle();
    const key = project ?? '';
    // Taken before the session is read: a change while it is read moves the stamp, so the exposure
    // kept under this one is derived again at the next call.
    const stamp = loader.changeStamp(arrived);
    const kept = this.kept.get(key);
    if (kept !== undefined && stamp !== null && kept.stamp === stamp) {
      // Most recently used last, so eviction takes the oldest.
      this.kept.delete(key);
      this.kept.set(key, kept);
      return kept.exposure;
    }
    // A derive already running serves this call only when it was made under the same stamp: one
    // that started before a change this call's check saw would hand it the old lists.
    const sharing = stamp === null ? null : `${key}\0${stamp}`;
    const running = sharing === null ? undefined : this.pending.get(sharing);
    if (running !== undefined) return running;
    const derived = this.derive(key, project, stamp, arrived);
    if (sharing !== null) this.pending.set(sharing, derived);
    try {
      return await derived;
    } finally {
      if (sharing !== null && this.pending.get(sharing) === derived) this.pending.delete(sharing);
    }
  }

  /**
   * Calls `listener` whenever the workspace may have changed (the stamp moved), checking every
   * {@link DEFAULT_WATCH_INTERVAL_MS} while anyone listens. The listener decides, with
   * {@link current}, whether a list it showed really changed. Returns the unsubscribe function.
   */
  watch(listener: () => void): () => void {
    this.listeners.add(listener);
    if (this.timer === null) {
      this.lastSeen = this.stamp();
      this.timer = setInterval(() => void this.tick(), this.intervalMs);
      this.timer.unref();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopWatching();
    };
  }

  /**
   * Keeps `exposure`'s session open until the returned function is called, though a newer one
   * replaces it meanwhile: a tool call runs its task in the session it found the tool in.
   */
  hold(exposure: SessionExposure): () => void {
    const session = exposure.session;
    this.holds.set(session, (this.holds.get(session) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.holds.get(session) ?? 1) - 1;
      if (left > 0) {
        this.holds.set(session, left);
        return;
      }
      this.holds.delete(session);
      if (this.letGo.delete(session)) session.dispose();
    };
  }

  /**
   * Whether `exposure`'s session still shows the workspace as it is now: the stamp it was derived
   * under is the stamp now, after queued watcher events arrived. False without a watch cache.
   */
  async isCurrent(exposure: SessionExposure): Promise<boolean> {
    const derivedUnder = this.stamps.get(exposure);
    if (derivedUnder === undefined) return false;
    await this.sessions.settle();
    return this.stamp() === derivedUnder;
  }

  /** Stops watching and lets go of every kept session. */
  close(): void {
    this.listeners.clear();
    this.stopWatching();
    for (const kept of this.kept.values()) this.dispose(kept.exposure.session);
    this.kept.clear();
  }

  /** Disposes a session no longer kept, or once the last call holding it lets go. */
  private dispose(session: Session): void {
    if (this.holds.has(session)) this.letGo.add(session);
    else session.dispose();
  }

  private async derive(key: string, project: string | null, stamp: string | null, arrived: number): Promise<SessionExposure> {
    const session = await this.sessions.open({ project, checkedSince: arrived });
    const exposure = exposeSession(session, this.schemas, this.kept.get(key)?.exposure.basis);
    if (stamp !== null) this.stamps.set(exposure, stamp);
    const previous = this.kept.get(key);
    this.kept.delete(key);
    this.kept.set(key, { exposure, stamp });
    // A request that got the replaced session uses it only in the same turn of the event loop (a
    // tool call's lookup), or holds it (a tool call's run); letting it go on the next turn keeps
    // that safe.
    const retired = previous === undefined ? [] : [previous];
    while (this.kept.size > KEPT_PROJECTS) {
      const [oldest, entry] = this.kept.entries().next().value as [string, Kept];
      this.kept.delete(oldest);
      retired.push(entry);
    }
    if (retired.length > 0) setImmediate(() => retired.forEach((entry) => this.dispose(entry.exposure.session)));
    return exposure;
  }

  /** The workspace's change stamp, or null when there is no watch cache to trust. */
  private stamp(): string | null {
    return this.sessions.changeStamp();
  }

  private async tick(): Promise<void> {
    await this.sessions.settle();
    if (this.timer === null) return; // closed meanwhile
    let stamp: string | null;
    try {
      stamp = this.stamp();
    } catch {
      // The database is busy or going away: the next tick asks again.
      return;
    }
    if (stamp !== null && stamp === this.lastSeen) return;
    this.lastSeen = stamp;
    for (const listener of [...this.listeners]) listener();
  }

  private stopWatching(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
