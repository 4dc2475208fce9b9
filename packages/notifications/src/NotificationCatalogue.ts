import { type CapabilityRecord, zodShape } from '@loadout/kernel';
import { z } from 'zod';


/** The file format of `notifications/<file>.json`. */
export const NotificationCatalogueFile = z.object({
  name: z.string().min(1).max(200),
  description: z.string().max(1024).optional(),
  notifications: z
    .array(
      z.object({
        id: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,127}$/, 'must be lower-case letters, digits, ".", "_" or "-"'),
        title: z.string().min(1).max(200),
        severity: z.enum(['info', 'success', 'warning', 'error']),
      }),
    )
    .max(1000),
  // Checked by the kernel's declaredGates, the one reader of gate declarations.
  gates: z.unknown().optional(),
});
export type NotificationCatalogueFile = z.infer<typeof NotificationCatalogueFile>;
export const notificationCatalogueShape = zodShape(NotificationCatalogueFile);

/** A notification one catalogue declares. */
export type NotificationDefinition = NotificationCatalogueFile['notifications'][number];

/** A notification catalogue in a session. */
export interface NotificationCatalogueRecord extends CapabilityRecord {
  readonly kind: 'notification';
  readonly notifications: readonly NotificationDefinition[];
}
