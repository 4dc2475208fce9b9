export * from './agentSkillsRules.js';
export * from './skillKind.js';
export * from './SkillRecord.js';
export * from './skillsModule.js';
