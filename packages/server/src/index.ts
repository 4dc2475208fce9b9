export { type RunningServer, startServer } from './startServer.js';
