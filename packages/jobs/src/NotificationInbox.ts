import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { SqlDatabase } from '@loadout/db';
import { type Session, token } from '@loadout/kernel';
import type { NotificationCatalogueRecord } from '@loadout/notifications';
import { inject, injectable } from 'tsyringe';
import { NotificationNotFoundError, NotificationUndeclaredError } from './JobErrors.js';

/** An event to put in the inbox; `notification` is an id a catalogue declares, e.g. `task.run.failed`. */
export interface NotificationEvent {
  readonly notification: string;
  /** One line for people. */
  readonly message: string;
  /** Facts a screen can link with, e.g. `{ jobId }`. */
  readonly data?: Readonly<Record<string, unknown>>;
}

/** A notification in the inbox, with the title and severity its catalogue gives it. */
export interface StoredNotification {
  readonly id: number;
  readonly notification: string;
  /** The id of the catalogue that declares it. */
  readonly catalogue: string;
  readonly plugin: string | null;
  readonly title: string;
  readonly severity: string;
  readonly message: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly read: boolean;
  readonly createdAt: string;
}

/**
 * The inbox. An event is stored only when a notification catalogue that is on in the emitting
 * session declares it; anything else is refused, so a switched-off catalogue silences its events.
 */
export interface NotificationInbox {
  /** Stores and broadcasts the event; throws `NotificationUndeclaredError` when no catalogue declares it. */
  emit(session: Session, event: NotificationEvent): Promise<StoredNotification>;
  /** Newest first. */
  list(options?: { limit?: number; unreadOnly?: boolean }): Promise<StoredNotification[]>;
  markRead(id: number): Promise<StoredNotification>;
  /**
   * Calls `listener` with every notification stored from now on, by this process or (on a shared
   * PostgreSQL database) by any server; returns the unsubscribe function.
   */
  subscribe(listener: (notification: StoredNotification) => void): () => void;
}
export const NotificationInbox = token<NotificationInbox>('jobs.notificationInbox');

/** The inbox keeps this many notifications; older ones are dropped as new ones arrive. */
const INBOX_SIZE = 10_000;

interface InboxRow {
  id: number;
  notification: string;
  catalogue: string;
  plugin: string | null;
  title: string;
  severity: string;
  message: string;
  data: string;
  read: number;
  created_at: string;
}

/** The channel a shared inbox announces stored notifications on: `<origin>:<id>`. */
const INBOX_CHANNEL = 'loadout_inbox';

/** The {@link NotificationInbox} on whichever engine {@link SqlDatabase} is. */
@injectable()
export class SqlNotificationInbox implements NotificationInbox {
  private readonly events = new EventEmitter().setMaxListeners(0);
  /** Names this process in what it announces, so it does not hear its own notifications twice. */
  private readonly origin = randomUUID();
  private listening: Promise<unknown> | null = null;

  constructor(@inject(SqlDatabase) private readonly db: SqlDatabase) {}

  async emit(session: Session, event: NotificationEvent): Promise<StoredNotification> {
    const declared = findDeclaration(session, event.notification);
    if (declared === null) throw new NotificationUndeclaredError(event.notification);
    const stored = await this.db.transaction(async (tx) => {
      const row = (await tx.queryOne<InboxRow>(
        `INSERT INTO notification_inbox (notification, catalogue, plugin, title, severity, message, data, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        [
          event.notification,
          declared.catalogue.id,
          declared.catalogue.plugin,
          declared.title,
          declared.severity,
          event.message,
          JSON.stringify(event.data ?? {}),
          new Date().toISOString(),
        ],
      )) as InboxRow;
      if (row.id % 100 === 0) await tx.run('DELETE FROM notification_inbox WHERE id <= ?', [row.id - INBOX_SIZE]);
      await this.db.notify(tx, INBOX_CHANNEL, `${this.origin}:${row.id}`);
      return toNotification(row);
    });
    this.events.emit('stored', stored);
    return stored;
  }

  async list(options: { limit?: number; unreadOnly?: boolean } = {}): Promise<StoredNotification[]> {
    const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
    const where = options.unreadOnly === true ? 'WHERE read = 0' : '';
    const rows = await this.db.query<InboxRow>(`SELECT * FROM notification_inbox ${where} ORDER BY id DESC LIMIT ?`, [limit]);
    return rows.map(toNotification);
  }

  async markRead(id: number): Promise<StoredNotification> {
    const row = await this.db.queryOne<InboxRow>('UPDATE notification_inbox SET read = 1 WHERE id = ? RETURNING *', [id]);
    if (row === undefined) throw new NotificationNotFoundError(id);
    return toNotification(row);
  }

  subscribe(listener: (notification: StoredNotification) => void): () => void {
    this.listening ??= this.db
      .listen(INBOX_CHANNEL, (payload) => void this.storedElsewhere(payload))
      .catch(() => {
        // Without the listening connection only this process's notifications reach its streams.
        this.listening = null;
      });
    this.events.on('stored', listener);
    return () => this.events.off('stored', listener);
  }

  /** A notification another server stored: read and passed to this process's subscribers. */
  private async storedElsewhere(payload: string): Promise<void> {
    const separator = payload.lastIndexOf(':');
    if (payload.slice(0, separator) === this.origin) return;
    const row = await this.db
      .queryOne<InboxRow>('SELECT * FROM notification_inbox WHERE id = ?', [Number(payload.slice(separator + 1))])
      .catch(() => undefined);
    if (row !== undefined) this.events.emit('stored', toNotification(row));
  }
}

function findDeclaration(
  session: Session,
  notification: string,
): { catalogue: NotificationCatalogueRecord; title: string; severity: string } | null {
  for (const catalogue of session.recordsOf<NotificationCatalogueRecord>('notification')) {
    const definition = catalogue.notifications.find((candidate) => candidate.id === notification);
    if (definition !== undefined) return { catalogue, title: definition.title, severity: definition.severity };
  }
  return null;
}

function toNotification(row: InboxRow): StoredNotification {
  return {
    id: row.id,
    notification: row.notification,
    catalogue: row.catalogue,
    plugin: row.plugin,
    title: row.title,
    severity: row.severity,
    message: row.message,
    data: JSON.parse(row.data) as Record<string, unknown>,
    read: row.read === 1,
    createdAt: row.created_at,
  };
}
