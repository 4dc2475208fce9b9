export * from './levelsFixture.js';
export { KILL_AFTER_STEP_ENV } from '../transferStep.js';
