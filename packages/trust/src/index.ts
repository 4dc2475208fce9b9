export { TrustService } from './TrustService.js';
export type { AuditEntry, RunnableCapability } from './TrustService.js';
export type { PluginApproveBody, TrustProjectBody } from './trustRoutes.js';
