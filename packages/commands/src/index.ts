export type { CommandRecord } from './CommandRecord.js';
export { commandPrompt } from './commandPrompt.js';
export { commandsModule } from './commandsModule.js';
