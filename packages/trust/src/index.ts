export { TrustService } from './TrustService.js';
export type { AuditEntry, RunnableCapability } from './TrustService.js';
export type { TrustProjectBody } from './trustRoutes.js';
