import { CapabilityKinds, contribute, type LoadoutModule } from '@loadout/kernel';
import { notificationKind } from './notificationKind.js';

/** Registers the notification catalogue kind. */
export const notificationsModule: LoadoutModule = {
  name: 'notifications',
  now: (container) => {
    contribute(container, CapabilityKinds, notificationKind);
  },
};
