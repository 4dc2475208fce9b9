export { keptReadsModule } from './keptReadsModule.js';
export { changedPlaces } from './sameItems.js';
export { watchBudgetFrom } from './WatchBudget.js';
