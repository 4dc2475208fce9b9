export { TrustService } from './TrustService.js';
export type { AuditEntry, ConsentEntry, PluginReview, ProjectReview, RunnableCapability } from './TrustService.js';
export type { PluginApproveBody, TrustProjectBody } from './trustRoutes.js';
