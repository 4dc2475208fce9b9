export * from './stateFixture.js';
