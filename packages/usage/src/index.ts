export { configureUsageRetention } from './usageLaterModule.js';
export { listedWords, parseUsageRuntime, parseUsageWindow, type UsageEntry, UsageLedger, type UsageReport } from './UsageLedger.js';
export { type UsageListedStatus, type UsageListingSnapshot, UsageListings } from './UsageListings.js';
export { UsageRecorder } from './UsageRecorder.js';
export type { UsageRouteQuery } from './usageRoutes.js';
export { USAGE_SPOOL_FOLDER, usageSpoolLineSchema } from './usageSpoolLine.js';
export { type UsageKind, UsageStore } from './UsageStore.js';
