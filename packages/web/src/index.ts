export * from './webAssetsDir.js';
