export { CLAUDE_CODE_COMPILED_IN } from './adapters/claudeCodeAdapter.js';
export { CODEX_SYSTEM_SKILLS } from './adapters/codexAdapter.js';
export { explainSkill, type WhyReport } from './explainSkill.js';
export { type BridgeRequest, openMcpConfig } from './mcp/planServers.js';
export type { McpConfigFile } from './mcp/RuntimeMcpSupport.js';
export { type ApplyMode, type ApplyResult, type RetiredListing, type RetiredReport, RuntimeApplier } from './RuntimeApplier.js';
export { RuntimePlanner } from './RuntimePlanner.js';
export type { RuntimeApplyBody, RuntimeWhyQuery } from './runtimeRoutes.js';
export { runtimesModule } from './runtimesModule.js';
