export * from './startServer.js';
