export {
  type AgentSkillBreak,
  agentSkillFolderBreaks,
  agentSkillFolderProblems,
  agentSkillName,
  RUNTIME_TOLERATED_RULES,
} from './agentSkillsRules.js';
export { SKILL_DOCUMENT } from './skillKind.js';
export type { SkillRecord } from './SkillRecord.js';
export { skillsModule } from './skillsModule.js';
