export { CLAUDE_CODE_COMPILED_IN } from './adapters/claudeCodeAdapter.js';
export { CLAUDE_CODE_VERSIONS } from './adapters/claudeCodeVersions.js';
export { CODEX_SYSTEM_SKILLS } from './adapters/codexAdapter.js';
export { explainSkill, type WhyReport } from './explainSkill.js';
export { type BridgeRequest, openMcpConfig } from './mcp/planServers.js';
export type { McpConfigFile } from './mcp/RuntimeMcpSupport.js';
export { type ApplyMode, type ApplyResult, type RetiredListing, RuntimeApplier } from './RuntimeApplier.js';
export { RuntimePlanner } from './RuntimePlanner.js';
export { runtimesModule } from './runtimesModule.js';
