export { type RunningServer, startServer } from './startServer.js';
export { announcedServerUrl } from './ServerLock.js';
export { TOKEN_FILE } from './ServerToken.js';
