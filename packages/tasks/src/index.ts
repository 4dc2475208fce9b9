export { describeRunnableExtensions, RUNNABLE_EXTENSIONS, taskInterpreterOf } from './taskInterpreters.js';
export { readTaskEntry, TASK_KIND } from './taskKind.js';
export type { TaskRecord } from './TaskRecord.js';
export type { NewTaskBody, TaskPatchBody } from './taskRoutes.js';
export { tasksModule } from './tasksModule.js';
export { type NewTask, type TaskPatch, TaskStore } from './TaskStore.js';
export { checkTaskInput, FREE_FORM_INPUT, type InputCheck, readStructuredOutput, TaskInputSchemas } from './TaskInputSchemas.js';
