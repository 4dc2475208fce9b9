export * from './Database.js';
export * from './dbModule.js';
