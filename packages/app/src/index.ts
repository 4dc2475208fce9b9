export * from './createLoadout.js';
