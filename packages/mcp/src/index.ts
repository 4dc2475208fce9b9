export { findProjectFolder } from './findProjectFolder.js';
export { mcpModule } from './mcpModule.js';
export { serveMcpOverStdio } from './serveMcpOverStdio.js';
