import { type CapabilityRecord, isJsonObject, isTextWithin, plainFirstShape } from '@loadout/kernel';
import { z } from 'zod';

const NOTIFICATION_ID = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const SEVERITIES = ['info', 'success', 'warning', 'error'] as const;
const MAX_NOTIFICATIONS = 1000;

/** The file format of `notifications/<file>.json`, built on first use (see {@link notificationCatalogueShape}). */
export function notificationCatalogueSchema() {
  return z.object({
    name: z.string().min(1).max(200),
    description: z.string().max(1024).optional(),
    notifications: z
      .array(
        z.object({
          id: z.string().regex(NOTIFICATION_ID, 'must be lower-case letters, digits, ".", "_" or "-"'),
          title: z.string().min(1).max(200),
          severity: z.enum(SEVERITIES),
        }),
      )
      .max(MAX_NOTIFICATIONS),
    // Checked by the kernel's declaredGates, the one reader of gate declarations.
    gates: z.unknown().optional(),
  });
}
export type NotificationCatalogueFile = z.infer<ReturnType<typeof notificationCatalogueSchema>>;

/** A notification one catalogue declares. */
export type NotificationDefinition = NotificationCatalogueFile['notifications'][number];

/**
 * A catalogue as {@link notificationCatalogueSchema} builds it (its fields in the schema's order,
 * unknown ones dropped) when it is plainly valid; null for anything else, which the schema judges.
 */
export function plainNotificationCatalogue(raw: unknown): NotificationCatalogueFile | null {
  if (!isJsonObject(raw)) return null;
  const { name, description, notifications, gates } = raw;
  if (!isTextWithin(name, 1, 200) || (description !== undefined && !isTextWithin(description, 0, 1024))) return null;
  if (!Array.isArray(notifications) || notifications.length > MAX_NOTIFICATIONS) return null;
  const definitions: NotificationDefinition[] = [];
  for (const item of notifications as unknown[]) {
    if (!isJsonObject(item)) return null;
    const { id, title, severity } = item;
    if (
      typeof id !== 'string' ||
      !NOTIFICATION_ID.test(id) ||
      !isTextWithin(title, 1, 200) ||
      !(SEVERITIES as readonly unknown[]).includes(severity)
    )
      return null;
    definitions.push({ id, title, severity: severity as NotificationDefinition['severity'] });
  }
  return {
    name,
    ...(description === undefined ? {} : { description }),
    notifications: definitions,
    ...(gates === undefined ? {} : { gates }),
  };
}

/** How a catalogue's file is checked: by hand, and by the schema when the hand check cannot tell. */
export const notificationCatalogueShape = plainFirstShape(plainNotificationCatalogue, notificationCatalogueSchema);

/** A notification catalogue in a session. */
export interface NotificationCatalogueRecord extends CapabilityRecord {
  readonly kind: 'notification';
  readonly notifications: readonly NotificationDefinition[];
}
