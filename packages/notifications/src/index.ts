export type { NotificationCatalogueRecord } from './NotificationCatalogue.js';
export { notificationsModule } from './notificationsModule.js';
