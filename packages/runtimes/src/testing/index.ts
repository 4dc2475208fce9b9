export * from './runtimeFixture.js';
