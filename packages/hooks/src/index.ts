export { hooksModule } from './hooksModule.js';
export { hookHandlerOf, type HookRecord } from './HookRecord.js';
