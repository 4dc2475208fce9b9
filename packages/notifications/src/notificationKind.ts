import path from 'node:path';
import {
  type CapabilityKind,
  capabilityId,
  declaredGates,
  type EntryScan,
  type KindFolderEntry,
  readJsonCapability,
} from '@loadout/kernel';
import { notificationCatalogueShape, type NotificationCatalogueRecord } from './NotificationCatalogue.js';

/** The notification catalogue kind: `notifications/<file>.json`. */
export const notificationKind: CapabilityKind<NotificationCatalogueRecord> = {
  kind: 'notification',
  folder: 'notifications',
  sessionKey: 'notifications',
  document: { idRule: 'name', nameField: 'json' },
  readEntry: readCatalogueEntry,
};

function readCatalogueEntry(entry: KindFolderEntry): EntryScan<NotificationCatalogueRecord> {
  if (entry.isDirectory || !entry.name.endsWith('.json')) return { records: [], diagnostics: [] };
  const file = readJsonCapability(entry.root.dir, entry.path, notificationCatalogueShape);
  if (file === null) return { records: [], diagnostics: [] };
  const relative = path.relative(entry.root.dir, entry.path);
  const id = capabilityId(file.name, relative, notificationKind.document);
  return {
    records: [
      {
        id,
        name: file.name,
        description: file.description ?? `${file.notifications.length} notification${file.notifications.length === 1 ? '' : 's'}`,
        path: entry.path,
        gates: declaredGates(file.gates, relative),
        notifications: file.notifications,
      },
    ],
    diagnostics: [],
  };
}
