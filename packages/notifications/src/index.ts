export * from './NotificationCatalogue.js';
export * from './notificationKind.js';
export * from './notificationsModule.js';
