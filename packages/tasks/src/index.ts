export * from './TaskErrors.js';
export * from './taskInterpreters.js';
export * from './taskKind.js';
export * from './taskName.js';
export * from './TaskRecord.js';
export * from './TaskStore.js';
export * from './tasksModule.js';
