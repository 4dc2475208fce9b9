export { agentsModule } from './agentsModule.js';
