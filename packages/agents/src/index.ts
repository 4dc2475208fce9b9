export type { AgentRecord } from './AgentRecord.js';
export { agentsModule } from './agentsModule.js';
