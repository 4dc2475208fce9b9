export { ingestSpool, MAX_SPOOL_FILE_BYTES, type SpoolIngestReport } from './SpoolIngest.js';
export { SqlUsageStore, usageMigration, usagePostgresMigration } from './SqlUsageStore.js';
export { UsageQueryInvalidError } from './UsageErrors.js';
export { configureUsageRetention } from './usageLaterModule.js';
export {
  DEFAULT_USAGE_RETENTION,
  parseUsageRuntime,
  parseUsageWindow,
  type UsageEntry,
  UsageLedger,
  type UsageQuery,
  type UsageReport,
  UsageRetention,
  type UsageSuggestion,
} from './UsageLedger.js';
export { type ServedUse, UsageRecorder } from './UsageRecorder.js';
export type { UsageRouteQuery } from './usageRoutes.js';
export { MAX_SPOOL_LINE_BYTES, USAGE_SPOOL_FOLDER, type UsageSpoolLine, usageSpoolDir, usageSpoolLineSchema } from './usageSpoolLine.js';
export { DAY_MS, type UsageEvent, type UsageKind, UsageStore, type UsageTally } from './UsageStore.js';
