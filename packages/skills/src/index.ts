export { agentSkillFolderProblems, agentSkillName } from './agentSkillsRules.js';
export { SKILL_DOCUMENT } from './skillKind.js';
export type { SkillRecord } from './SkillRecord.js';
export { skillsModule } from './skillsModule.js';
