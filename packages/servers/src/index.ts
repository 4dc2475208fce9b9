export * from './ServerDefinition.js';
export * from './serverKind.js';
export * from './serversModule.js';
export * from './serverDocument.js';
