export { mcpHttpRoutes } from './mcpHttpFace.js';
export { mcpModule } from './mcpModule.js';
export { serveMcpOverStdio } from './serveMcpOverStdio.js';
