export { commandsModule } from './commandsModule.js';
