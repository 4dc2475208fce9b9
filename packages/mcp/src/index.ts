export * from './findProjectFolder.js';
export * from './mcpHttpFace.js';
export * from './mcpModule.js';
export * from './serveMcpOverStdio.js';
export * from './toolName.js';
