export { configureUsageRetention } from './usageLaterModule.js';
export { parseUsageRuntime, parseUsageWindow, UsageLedger, type UsageReport } from './UsageLedger.js';
export { UsageRecorder } from './UsageRecorder.js';
export type { UsageRouteQuery } from './usageRoutes.js';
export { USAGE_SPOOL_FOLDER, usageSpoolLineSchema } from './usageSpoolLine.js';
export { type UsageKind, UsageStore } from './UsageStore.js';
