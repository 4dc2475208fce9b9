export * from './webAssetsDir.js';
export * from './webModule.js';
